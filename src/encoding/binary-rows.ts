/**
 * Rows for bulk writes in PostgreSQL's binary COPY format, built in one reused buffer like
 * AsciiText: each row its field count, then each field's length and bytes. The server then
 * parses no text: CSV splitting, numeric_in and timestamptz_in were most of its CPU on a bulk
 * write (bench/README.md). Every value is the one the CSV text would store: a numeric with the
 * same digits and scale (so it renders the same), the same instant.
 */
import { formatFloat } from '../domain/decimal';
import { ByteBuilder } from './ascii-text';

/** The types of the columns bulk writes fill, as their binary forms are written and read back. */
export type ColumnType = 'int4' | 'int8' | 'bool' | 'text' | 'timestamptz' | 'numeric';

/** Signature, flags (none), header extension length (none). */
export const COPY_BINARY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** Field count -1: the end of the data. */
export const COPY_BINARY_TRAILER = Buffer.from([0xff, 0xff]);

/** Microseconds from the Unix epoch to PostgreSQL's (2000-01-01). */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_POW_32 = 2 ** 32;
const NUMERIC_NEG = 0x4000;
const ZERO = 48;

/** Big-endian stores by hand: Buffer's writeInt*BE validate every value, a cost per field on millions of rows. */
function put16(b: Uint8Array, at: number, v: number): number {
  b[at] = v >>> 8;
  b[at + 1] = v;
  return at + 2;
}

function put32(b: Uint8Array, at: number, v: number): number {
  b[at] = v >>> 24;
  b[at + 1] = v >>> 16;
  b[at + 2] = v >>> 8;
  b[at + 3] = v;
  return at + 4;
}

function get32(b: Uint8Array, at: number): number {
  return (b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3];
}

const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

export class BinaryRows extends ByteBuilder {
  /** Digits of a scaled integer, right-aligned (scales beyond exact group arithmetic). */
  private readonly digits = new Uint8Array(48);
  /** Base-10,000 groups of a numeric, most significant first. */
  private readonly groups = new Int32Array(16);

  constructor(capacity = 1 << 16) {
    super(capacity);
  }

  /** The rows so far, and an empty buffer of the same size to go on with (what is taken is the caller's). */
  take(): Buffer {
    const out = this.bytes.subarray(0, this.length);
    this.bytes = Buffer.allocUnsafe(this.bytes.length);
    this.length = 0;
    return out;
  }

  /** A row of `fields` fields starts. */
  row(fields: number): void {
    this.room(2);
    this.length = put16(this.bytes, this.length, fields);
  }

  null(): void {
    this.room(4);
    this.length = put32(this.bytes, this.length, -1);
  }

  int4(v: number): void {
    this.room(8);
    this.length = put32(this.bytes, put32(this.bytes, this.length, 4), v);
  }

  /** An int8 from its integer digits (a trade count). */
  int8(digits: string): void {
    this.room(12);
    this.length = this.bytes.writeBigInt64BE(BigInt(digits), put32(this.bytes, this.length, 8));
  }

  bool(v: boolean): void {
    this.room(5);
    this.length = put32(this.bytes, this.length, 1);
    this.bytes[this.length++] = v ? 1 : 0;
  }

  /** A text field of ASCII characters (a code). */
  ascii(s: string): void {
    this.room(4 + s.length);
    const b = this.bytes;
    let at = put32(b, this.length, s.length);
    for (let i = 0; i < s.length; i++) b[at++] = s.charCodeAt(i);
    this.length = at;
  }

  /** An instant (Unix ms) as timestamptz: microseconds since 2000-01-01, exactly, in two 32-bit halves. */
  timestamptz(ms: number): void {
    const d = ms - PG_EPOCH_MS;
    const dh = Math.floor(d / TWO_POW_32);
    const lowUs = (d - dh * TWO_POW_32) * 1000; // below 2^42: exact
    const carry = Math.floor(lowUs / TWO_POW_32);
    this.room(12);
    const b = this.bytes;
    const at = put32(b, this.length, 8);
    this.length = put32(b, put32(b, at, dh * 1000 + carry), lowUs - carry * TWO_POW_32);
  }

  /**
   * A numeric from ASCII digits: the integer digits [intStart, intEnd) and the fraction
   * [fracStart, fracEnd), whose length is the scale (as numeric_in keeps a text's scale).
   * Groups of four digits around the point; PostgreSQL strips the zero groups at either end.
   */
  decimal(src: Uint8Array, intStart: number, intEnd: number, fracStart: number, fracEnd: number, neg: boolean): void {
    const il = intEnd - intStart;
    const fl = fracEnd - fracStart;
    const ig = (il + 3) >> 2;
    const fg = (fl + 3) >> 2;
    const n = ig + fg;
    this.room(12 + 2 * n);
    const b = this.bytes;
    let at = this.header(n, ig - 1, neg, fl);
    let i = intStart;
    for (let g = 0; g < ig; g++) {
      let v = 0;
      for (let k = g === 0 ? il - 4 * (ig - 1) : 4; k > 0; k--) v = v * 10 + src[i++] - ZERO;
      at = put16(b, at, v);
    }
    i = fracStart;
    for (let g = 0; g < fg; g++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v = v * 10 + (i < fracEnd ? src[i++] - ZERO : 0);
      at = put16(b, at, v);
    }
    this.length = at;
  }

  /** The field's length and a numeric's header; returns where its digit groups go. */
  private header(n: number, weight: number, neg: boolean, dscale: number): number {
    const b = this.bytes;
    let at = put32(b, this.length, 8 + 2 * n);
    at = put16(b, at, n);
    at = put16(b, at, weight);
    at = put16(b, at, neg ? NUMERIC_NEG : 0);
    return put16(b, at, dscale);
  }

  /** The numeric `m` x 10^-`scale` (an integer `m` of at most 2^53), of that scale. */
  scaled(m: number, scale: number): void {
    const neg = m < 0;
    const x = neg ? -m : m;
    const padded = (scale + 3) & ~3;
    if (padded > 12) return this.scaledDigits(x, scale, neg && m !== 0);
    // Exact integer arithmetic (floor of a quotient, corrected; `%` on doubles is slow): the
    // fraction (below 10^scale) padded to whole groups stays under 2^53. Written out: a shared
    // helper is not inlined into this hot path and measured slower.
    const p = POW10[scale];
    let whole = Math.floor(x / p);
    let frac = x - whole * p;
    if (frac < 0) {
      whole -= 1;
      frac += p;
    } else if (frac >= p) {
      whole += 1;
      frac -= p;
    }
    let f = frac * POW10[padded - scale];
    const fg = padded >> 2;
    const g = this.groups;
    for (let k = fg - 1; k >= 0; k--) {
      const q = Math.floor(f / 10_000);
      g[k + 4] = f - q * 10_000;
      f = q;
    }
    // Integer groups, least significant first, into g[3], g[2], ...: at most 4 below 2^53.
    let ig = 0;
    while (whole > 0) {
      let q = Math.floor(whole / 10_000);
      let v = whole - q * 10_000;
      // Near 2^53 the quotient may round to the next integer.
      if (v < 0) {
        q -= 1;
        v += 10_000;
      }
      g[3 - ig++] = v;
      whole = q;
    }
    const n = ig + fg;
    this.room(12 + 2 * n);
    let at = this.header(n, ig - 1, neg && m !== 0, scale);
    const b = this.bytes;
    for (let k = 4 - ig; k < 4 + fg; k++) at = put16(b, at, g[k]);
    this.length = at;
  }

  /** `scaled` by way of its decimal digits: scales whose padded fraction would pass exact integers. */
  private scaledDigits(x: number, scale: number, neg: boolean): void {
    const d = this.digits;
    let k = d.length;
    do {
      const digit = x % 10;
      d[--k] = ZERO + digit;
      x = (x - digit) / 10;
    } while (x > 0 || d.length - k <= scale);
    this.decimal(d, k, d.length - scale, d.length - scale, d.length, neg);
  }

  /** A plain decimal's text (`-?\d+(\.\d+)?`, as parseDecimal writes it). */
  decimalText(s: string): void {
    const src = Buffer.from(s, 'latin1');
    const neg = src[0] === 45;
    const start = neg ? 1 : 0;
    const dot = src.indexOf(46);
    if (dot < 0) this.decimal(src, start, src.length, src.length, src.length, neg);
    else this.decimal(src, start, dot, dot + 1, src.length, neg);
  }

  /** A computed value with `places` decimals, as formatFloat writes it (half away from zero); NULL for null or a non-finite value. */
  fixed(v: number | null, places: number): void {
    if (v === null || !Number.isFinite(v)) return this.null();
    const r = roundScaled(v < 0 ? -v : v, places);
    if (r < 0) {
      // formatFloat writes 1e21 and beyond in exponent form (toFixed's), which numeric reads whole.
      const text = formatFloat(v, places)!;
      return this.decimalText(text.includes('e') ? wholeOfExponent(text) : text);
    }
    this.scaled(v < 0 ? -r : r, places);
  }
}

/** The next row of `buf` at `at`: where each field starts (-1: NULL) and ends, and where the row ends. */
function fieldsAt(buf: Uint8Array, at: number, starts: number[], ends: number[]): number {
  const n = (buf[at] << 8) | buf[at + 1];
  at += 2;
  starts.length = ends.length = n;
  for (let f = 0; f < n; f++) {
    const len = get32(buf, at);
    at += 4;
    starts[f] = len < 0 ? -1 : at;
    ends[f] = len < 0 ? -1 : at + len;
    if (len > 0) at += len;
  }
  return at;
}

/** Where the row of `buf` starting at `at` ends. */
export function rowEnd(buf: Buffer, at: number): number {
  const n = (buf[at] << 8) | buf[at + 1];
  at += 2;
  for (let f = 0; f < n; f++) {
    const len = get32(buf, at);
    at += len > 0 ? 4 + len : 4;
  }
  return at;
}

/** The timestamptz field `field` of the row of `buf` starting at `at`, in Unix ms. */
export function rowTime(buf: Buffer, at: number, field: number): number {
  at += 2;
  for (let f = 0; f < field; f++) {
    const len = get32(buf, at);
    at += len > 0 ? 4 + len : 4;
  }
  return timeOf(buf, at + 4);
}

/** Unix ms of the microseconds at `at` (whole milliseconds, as the columns hold), without a BigInt. */
function timeOf(buf: Buffer, at: number): number {
  const hi = buf.readInt32BE(at);
  const lo = buf.readUInt32BE(at + 4);
  // hi x 2^32 + lo = 1000 x (hi x 4,294,967) + (hi x 296 + lo), each part exact.
  return PG_EPOCH_MS + hi * 4_294_967 + Math.floor((hi * 296 + lo) / 1000);
}

/** The rows of `buf` as the text PostgreSQL reads each field from (null: NULL), for statements that take text (a small write). */
export function rowsAsText(buf: Buffer, types: readonly ColumnType[]): (string | null)[][] {
  const rows: (string | null)[][] = [];
  const fs: number[] = [];
  const fe: number[] = [];
  for (let at = 0; at < buf.length; ) {
    at = fieldsAt(buf, at, fs, fe);
    rows.push(types.map((type, f) => (fs[f] < 0 ? null : fieldText(buf, fs[f], fe[f], type))));
  }
  return rows;
}

function fieldText(buf: Buffer, start: number, end: number, type: ColumnType): string {
  switch (type) {
    case 'int4':
      return String(buf.readInt32BE(start));
    case 'int8':
      return String(buf.readBigInt64BE(start));
    case 'bool':
      return buf[start] ? 't' : 'f';
    case 'text':
      return buf.toString('utf8', start, end);
    case 'timestamptz':
      return new Date(timeOf(buf, start)).toISOString();
    case 'numeric':
      return numericText(buf, start);
  }
}

/** A binary numeric as numeric_out writes it. */
function numericText(buf: Buffer, at: number): string {
  const n = buf.readInt16BE(at);
  const weight = buf.readInt16BE(at + 2);
  const neg = buf.readUInt16BE(at + 4) === NUMERIC_NEG;
  const dscale = buf.readInt16BE(at + 6);
  let digits = '';
  for (let g = 0; g < n; g++) digits += String(buf.readInt16BE(at + 8 + 2 * g)).padStart(4, '0');
  // digits holds groups weight, weight-1, ...: the point sits after (weight + 1) groups.
  const point = (weight + 1) * 4;
  const whole = point <= 0 ? '' : digits.slice(0, point).padEnd(point, '0');
  const frac = (point < 0 ? '0'.repeat(-point) + digits : digits.slice(Math.max(point, 0))).padEnd(dscale, '0').slice(0, dscale);
  const int = whole.replace(/^0+/, '') || '0';
  const text = dscale > 0 ? `${int}.${frac}` : int;
  return neg && /[1-9]/.test(text) ? `-${text}` : text;
}

const TWO_POW_52 = 2 ** 52;
const TWO_POW_M52 = 2 ** -52;
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

/** toFixed's exponent form of a number of 1e21 or more (`-1.5e+300`) as its whole digits. */
function wholeOfExponent(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?e\+(\d+)$/.exec(text);
  if (!m) throw new Error(`not an exponent form: ${text}`);
  const digits = m[2] + (m[3] ?? '');
  return m[1] + digits.padEnd(m[2].length + Number(m[4]), '0');
}
