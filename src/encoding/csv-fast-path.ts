/**
 * The common shape of an imported candle line, validated from its bytes: the time as Unix
 * milliseconds or `YYYY-MM-DDTHH:MM:SS[.fff]Z`, five plain decimals (`-?(0|[1-9]\d*)(\.\d+)?`),
 * nothing else. Any other line (another time form, an exponent, a leading zero, a quote, a space,
 * a row that breaks a rule of `parseCandleRow`) is left to the general parser, so this path never
 * rejects, and what it accepts it writes (as binary COPY fields) byte for byte as `parseCandleRow`
 * then `writeCandle` would (test/unit/csv-fast-path.test.ts checks both on generated lines).
 */
import type { BinaryRows } from './binary-rows';
import type { CandleInput } from '../domain/csv-rows';

const DAY_MS = 86_400_000;
const COMMA = 44;
const DOT = 46;
const ZERO = 48;
const MINUS = 45;

/** Per decimal field: start and end of the integer digits, start and end of the fraction without trailing zeros. */
const at = new Int32Array(20);

/** A validated candle as the general path writes it: the fields `time,open,high,low,close,volume` (canonical decimals). */
export function writeCandle(out: BinaryRows, row: CandleInput): void {
  out.timestamptz(row.time);
  out.decimalText(row.open);
  out.decimalText(row.high);
  out.decimalText(row.low);
  out.decimalText(row.close);
  out.decimalText(row.volume);
}

/**
 * Line bytes [start, end) of a candle file at a timeframe of `periodMs`: when they have the
 * common shape and pass every rule, the row is written to `out` as `writeCandle` writes it and
 * its time (ms) is returned; otherwise nothing is written and -1 is returned.
 */
export function fastCandleLine(src: Uint8Array, start: number, end: number, periodMs: number, out: BinaryRows): number {
  let comma = start;
  while (comma < end && src[comma] !== COMMA) comma++;
  if (comma === end) return -1;
  const ms = timeOf(src, start, comma);
  if (ms < 0 || ms % periodMs !== 0) return -1;
  let i = comma + 1;
  for (let f = 0; f < 5; f++) {
    i = decimalAt(src, i, end, f);
    if (i < 0) return -1;
    if (f < 4 ? i === end || src[i] !== COMMA : i !== end) return -1;
    i++;
  }
  // open 0, high 1, low 2, close 3, volume 4: the rules of parseCandleRow, in exact decimals.
  if (isZero(src, 2)) return -1;
  if (compare(src, 1, 0) < 0 || compare(src, 1, 3) < 0) return -1;
  if (compare(src, 2, 0) > 0 || compare(src, 2, 3) > 0) return -1;
  out.timestamptz(ms);
  for (let k = 0; k < 20; k += 4) out.decimal(src, at[k], at[k + 1], at[k + 2], at[k + 3], false);
  return ms;
}

/**
 * The five decimals of the line `fastCandleLine` accepted last (from `src`) as mantissa and
 * scale into `out` (ten values, as ImportedBars takes them); false when one has more digits
 * than an exact integer holds.
 */
export function acceptedDecimals(src: Uint8Array, out: Float64Array): boolean {
  for (let f = 0; f < 5; f++) {
    const k = f * 4;
    let m = 0;
    for (let i = at[k]; i < at[k + 1]; i++) m = m * 10 + (src[i] - ZERO);
    for (let i = at[k + 2]; i < at[k + 3]; i++) m = m * 10 + (src[i] - ZERO);
    const scale = at[k + 3] - at[k + 2];
    if (m > Number.MAX_SAFE_INTEGER || scale > 22) return false;
    out[2 * f] = m;
    out[2 * f + 1] = scale;
  }
  return true;
}

/** The time (ms) of a candle line whose time has one of the common forms, else -1 (the span scan before an import). */
export function candleLineTime(src: Uint8Array, start: number, end: number): number {
  let comma = start;
  while (comma < end && src[comma] !== COMMA) comma++;
  return comma === end ? -1 : timeOf(src, start, comma);
}

function digit(c: number): number {
  const d = c - ZERO;
  return d >= 0 && d <= 9 ? d : -1;
}

/** Two digits at `i`, or -1. */
function two(src: Uint8Array, i: number): number {
  const a = digit(src[i]);
  const b = digit(src[i + 1]);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

/** Unix ms of the time field [i, end) in one of the two common forms, valid and from 1970 on; else -1. */
function timeOf(src: Uint8Array, i: number, end: number): number {
  const len = end - i;
  if (len <= 16) {
    if (len === 0) return -1;
    let ms = 0;
    for (let k = i; k < end; k++) {
      const d = digit(src[k]);
      if (d < 0) return -1;
      ms = ms * 10 + d;
    }
    // Year 9999 at most, as parseTimestamp.
    return ms <= 253_402_300_799_999 ? ms : -1;
  }
  // YYYY-MM-DDTHH:MM:SS, then Z or a fraction of 1 to 9 digits and Z.
  if (len < 20 || len === 21 || len > 30) return -1;
  if (src[i + 4] !== MINUS || src[i + 7] !== MINUS || src[i + 10] !== 84 || src[i + 13] !== 58 || src[i + 16] !== 58) return -1;
  if (src[end - 1] !== 90) return -1;
  if (len > 20) {
    if (src[i + 19] !== DOT) return -1;
    // Milliseconds are the first three digits of the fraction (parseTimestamp floors the
    // rest away): a row's time is aligned to a minute, so they are zero here.
    for (let k = i + 20; k < end - 1; k++) if (digit(src[k]) < 0 || (k < i + 23 && src[k] !== ZERO)) return -1;
  }
  const hi = two(src, i);
  const lo = two(src, i + 2);
  const month = two(src, i + 5);
  const day = two(src, i + 8);
  const hour = two(src, i + 11);
  const minute = two(src, i + 14);
  const second = two(src, i + 17);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return -1;
  const year = hi * 100 + lo;
  if (year < 1970 || day > daysInMonth(year, month)) return -1;
  return daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/**
 * A plain non-negative decimal starting at `i` (field `f`): records its parts in `at` and
 * returns where it ends, or -1 when it is not in the plain canonical-but-for-zeros form.
 */
function decimalAt(src: Uint8Array, i: number, end: number, f: number): number {
  const k = f * 4;
  const intStart = i;
  while (i < end && digit(src[i]) >= 0) i++;
  if (i === intStart || (src[intStart] === ZERO && i - intStart > 1)) return -1;
  at[k] = intStart;
  at[k + 1] = i;
  if (i < end && src[i] === DOT) {
    const fracStart = ++i;
    let last = i;
    while (i < end) {
      const d = digit(src[i]);
      if (d < 0) break;
      i++;
      if (d !== 0) last = i;
    }
    if (i === fracStart) return -1;
    at[k + 2] = fracStart;
    at[k + 3] = last;
  } else {
    at[k + 2] = i;
    at[k + 3] = i;
  }
  return i;
}

function isZero(src: Uint8Array, f: number): boolean {
  const k = f * 4;
  return at[k + 1] - at[k] === 1 && src[at[k]] === ZERO && at[k + 3] === at[k + 2];
}

/** Exact order of two recorded non-negative decimals (no leading zeros, no trailing fractional zeros). */
function compare(src: Uint8Array, a: number, b: number): number {
  const ka = a * 4;
  const kb = b * 4;
  const la = at[ka + 1] - at[ka];
  const lb = at[kb + 1] - at[kb];
  if (la !== lb) return la - lb;
  for (let j = 0; j < la; j++) {
    const d = src[at[ka] + j] - src[at[kb] + j];
    if (d !== 0) return d;
  }
  const fa = at[ka + 3] - at[ka + 2];
  const fb = at[kb + 3] - at[kb + 2];
  const n = Math.min(fa, fb);
  for (let j = 0; j < n; j++) {
    const d = src[at[ka + 2] + j] - src[at[kb + 2] + j];
    if (d !== 0) return d;
  }
  return fa - fb;
}
