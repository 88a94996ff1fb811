/**
 * ASCII text built as bytes in one buffer (JSON rows, encoding/json-rows.ts): numbers, times
 * and codes are ASCII, so no string is made per value or per row (on 10,000 rows the strings
 * and their garbage collection cost more than the formatting itself; bench/README.md).
 */
import { fixedPlaces } from '../domain/decimal';
import { formatTimestamp } from '../domain/time';

const DAY_S = 86_400;
/** Year 10000 in seconds: from there the API's time has six-digit years (formatTimestamp's other path). */
const YEAR_10000_S = 253_402_300_800;

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
   * `formatTimestamp` of the whole seconds of an epoch-seconds text (float8's, `1704067200` or
   * `1704067200.5`), written without making a string: the date part is kept for the day last
   * written (a page's rows come a day at a time). Other forms go through formatTimestamp.
   */
  epochTime(text: string): void {
    let sec = 0;
    let i = 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 46) break; // .
      if (c < 48 || c > 57 || i > 11) return this.ascii(formatTimestamp(Math.floor(Number(text)) * 1000));
      sec = sec * 10 + (c - 48);
    }
    // A fraction must be digits only (an exponent form goes through formatTimestamp).
    for (let k = i + 1; k < text.length; k++) {
      const c = text.charCodeAt(k);
      if (c < 48 || c > 57) return this.ascii(formatTimestamp(Math.floor(Number(text)) * 1000));
    }
    if (i === 0 || !(sec < YEAR_10000_S)) return this.ascii(formatTimestamp(Math.floor(Number(text)) * 1000));
    const day = Math.floor(sec / DAY_S);
    if (day !== this.day) {
      this.day = day;
      this.dayText.write(new Date(day * DAY_S * 1000).toISOString().slice(0, 11), 'latin1');
    }
    this.room(25);
    const b = this.bytes;
    let at = this.length;
    for (let k = 0; k < 11; k++) b[at++] = this.dayText[k];
    const s = sec - day * DAY_S;
    at = two(b, at, (s / 3600) | 0);
    b[at++] = 58; // :
    at = two(b, at, ((s % 3600) / 60) | 0);
    b[at++] = 58;
    at = two(b, at, s % 60);
    for (const c of PLUS_ZERO) b[at++] = c;
    this.length = at;
  }
}

const PLUS_ZERO = Buffer.from('+00:00', 'latin1');

function two(b: Buffer, at: number, n: number): number {
  b[at] = 48 + ((n / 10) | 0);
  b[at + 1] = 48 + (n % 10);
  return at + 2;
}
