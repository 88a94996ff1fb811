/**
 * CSV text for bulk writes built as bytes in one reused buffer: numbers, times and codes are
 * ASCII, so no string is made per value or per line (on a million candles or feature rows, the
 * strings and their garbage collection cost more than the formatting itself; bench/README.md).
 */
import { fixedPlaces, formatFloat } from '../domain/decimal';

const DAY_MS = 86_400_000;
/** Year 10000: from there toISOString writes six-digit years. */
const YEAR_10000_MS = 253_402_300_800_000;
const TWO_POW_52 = 2 ** 52;
const INT32_MAX = 2 ** 31 - 1;
const TWO_POW_M52 = 2 ** -52;
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/** Bytes written into one buffer that grows as needed (AsciiText, BinaryRows). */
export class ByteBuilder {
  bytes: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.bytes = Buffer.allocUnsafe(capacity);
  }

  /** Make room for `n` more bytes (the buffer grows; what it holds is kept). */
  room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  /** The bytes so far, as a view of the buffer: nothing may be written after. */
  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

/**
 * Texts (rows already JSON) comma-separated, as UTF-8 bytes in one buffer: no joined string of
 * the page (a 15-feature page of 10,000 rows is 4 MB) to collect and encode again.
 */
export function joinedBytes(texts: readonly string[]): Buffer {
  const out = new ByteBuilder(texts.length * 400 + 16);
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    out.room(text.length * 3 + 1);
    if (i > 0) out.bytes[out.length++] = 44; // ,
    out.length += out.bytes.write(text, out.length, 'utf8');
  }
  return out.view();
}

export class AsciiText extends ByteBuilder {
  private day = NaN;
  private readonly dayText = Buffer.alloc(11);

  constructor(capacity = 1 << 20) {
    super(capacity);
  }

  /** An ASCII string (a code, a number's text). */
  ascii(s: string): void {
    this.room(s.length);
    this.length += this.bytes.write(s, this.length, 'latin1');
  }

  byte(c: number): void {
    this.room(1);
    this.bytes[this.length++] = c;
  }

  /** Bytes [start, end) of `src`. */
  copy(src: Uint8Array, start: number, end: number): void {
    this.room(end - start);
    const b = this.bytes;
    let at = this.length;
    for (let i = start; i < end; i++) b[at++] = src[i];
    this.length = at;
  }

  /**
   * `fixedPlaces(text.slice(from, to), places)` (a NUMERIC's text with exactly `places`
   * decimals): the common case, padding, written without making a string.
   */
  decimal(text: string, from: number, to: number, places: number): void {
    let dot = -1;
    for (let i = from; i < to; i++) {
      if (text.charCodeAt(i) === 46) {
        dot = i;
        break;
      }
    }
    const have = dot < 0 ? 0 : to - dot - 1;
    const last = text.charCodeAt(to - 1);
    if (have > places || !(last >= 48 && last <= 57)) return this.ascii(fixedPlaces(text.slice(from, to), places));
    this.room(to - from + places + 1);
    const b = this.bytes;
    let at = this.length;
    for (let i = from; i < to; i++) b[at++] = text.charCodeAt(i);
    if (dot < 0 && places > 0) b[at++] = 46; // .
    for (let i = have; i < places; i++) b[at++] = 48;
    this.length = at;
  }

  /**
   * An instant as `new Date(ms).toISOString()` writes it (`2024-01-01T00:01:00.000Z`); the date
   * part is kept for the day last written (rows come in time order, a day at a time).
   */
  isoTime(ms: number): void {
    if (!(ms >= 0 && ms < YEAR_10000_MS)) return this.ascii(new Date(ms).toISOString());
    const day = Math.floor(ms / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.dayText.write(new Date(day * DAY_MS).toISOString().slice(0, 11), 'latin1');
    }
    this.room(24);
    const b = this.bytes;
    let at = this.length;
    for (let i = 0; i < 11; i++) b[at++] = this.dayText[i];
    // Milliseconds into the day: small integers, so the arithmetic stays in int32.
    let t = (ms - day * DAY_MS) | 0;
    const millis = t % 1000;
    t = (t / 1000) | 0;
    const sec = t % 60;
    t = (t / 60) | 0;
    const min = t % 60;
    const hour = (t / 60) | 0;
    at = two(b, at, hour);
    b[at++] = 58; // :
    at = two(b, at, min);
    b[at++] = 58;
    at = two(b, at, sec);
    b[at++] = 46; // .
    b[at++] = 48 + ((millis / 100) | 0);
    b[at++] = 48 + (((millis / 10) | 0) % 10);
    b[at++] = 48 + (millis % 10);
    b[at++] = 90; // Z
    this.length = at;
  }

  /**
   * A computed value with `places` decimals (at most 8), exactly as `formatFloat` writes it
   * (half away from zero on the double's exact value); nothing for null or a non-finite value
   * (an empty CSV field: NULL). Digits come from one integer, v x 10^places rounded; a product
   * within rounding distance of a tie, or too large for exact integers, goes to formatFloat.
   */
  fixed(v: number | null, places: number): void {
    if (v === null || !Number.isFinite(v)) return;
    const neg = v < 0;
    const r = roundScaled(neg ? -v : v, places);
    if (r < 0) {
      this.ascii(formatFloat(v, places)!);
      return;
    }
    const scale = POW10[places];
    let whole = Math.floor(r / scale);
    let part = r - whole * scale;
    if (part < 0) {
      whole -= 1;
      part += scale;
    } else if (part >= scale) {
      whole += 1;
      part -= scale;
    }
    this.room(places + 18);
    const b = this.bytes;
    let at = this.length;
    if (neg && r !== 0) b[at++] = 45; // -
    at = whole <= INT32_MAX ? smallDigits(b, at, whole | 0) : digits(b, at, whole);
    if (places > 0) {
      b[at++] = 46;
      let p = part | 0;
      for (let i = places - 1; i >= 0; i--) {
        const q = (p / 10) | 0;
        b[at + i] = 48 + p - q * 10;
        p = q;
      }
      at += places;
    }
    this.length = at;
  }
}

/**
 * |v| x 10^places rounded half away from zero on the double's exact value (`x` = |v|, places at
 * most 8), or -1 when the product lies within rounding distance of a tie or beyond exact
 * integers: formatFloat decides those.
 */
export function roundScaled(x: number, places: number): number {
  const scaled = x * POW10[places];
  const floor = Math.floor(scaled);
  const frac = scaled - floor;
  // |scaled - x * 10^places| <= half an ulp of scaled, well within scaled * 2^-52.
  if (!(scaled < TWO_POW_52) || Math.abs(frac - 0.5) <= scaled * TWO_POW_M52) return -1;
  return frac > 0.5 ? floor + 1 : floor;
}

function two(b: Buffer, at: number, n: number): number {
  b[at] = 48 + ((n / 10) | 0);
  b[at + 1] = 48 + (n % 10);
  return at + 2;
}

/** A non-negative int32 in decimal digits. */
function smallDigits(b: Buffer, at: number, n: number): number {
  let len = 1;
  for (let p = n; p >= 10; p = (p / 10) | 0) len++;
  for (let i = at + len - 1; i >= at; i--) {
    const q = (n / 10) | 0;
    b[i] = 48 + n - q * 10;
    n = q;
  }
  return at + len;
}

/** A non-negative integer below 2^53 in decimal digits. */
function digits(b: Buffer, at: number, n: number): number {
  let len = 1;
  for (let p = 10; p <= n; p *= 10) len++;
  for (let i = at + len - 1; i >= at; i--) {
    const d = n % 10;
    b[i] = 48 + d;
    n = (n - d) / 10;
  }
  return at + len;
}
