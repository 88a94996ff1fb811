/**
 * Exact decimal strings. Prices are stored and compared as decimals, never through binary
 * floating point, and rendered with a fixed number of places, rounded half away from zero.
 */

const DECIMAL_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/;
/**
 * Plain text already canonical but for trailing fractional zeros ("43000.12000000", "-0.5",
 * "7"), which is how venues and most files write prices: read by one match.
 */
const PLAIN_RE = /^(-?)(0|[1-9]\d*)(?:\.(\d*[1-9])?0*)?$/;

/**
 * Parse user input (plain or exponent notation) into a canonical plain decimal string
 * ("-0.00012", "42", "1.5"): no exponent, no leading "+", no superfluous zeros.
 * Returns null when the text is not a finite decimal number.
 */
export function parseDecimal(input: string): string | null {
  const plain = PLAIN_RE.exec(input);
  if (plain) {
    const [, sign, intPart, fracPart] = plain;
    const out = fracPart === undefined ? intPart : `${intPart}.${fracPart}`;
    return sign === '-' && out !== '0' ? `-${out}` : out;
  }
  return parseAnyDecimal(input);
}

/** `text` (a canonical decimal) times 10^places, exact: the point moved. */
export function shiftDecimal(text: string, places: number): string {
  return places === 0 ? text : parseAnyDecimal(`${text}e${places}`)!;
}

/** parseDecimal for every accepted form (signs, exponents, leading zeros, spaces around). */
export function parseAnyDecimal(input: string): string | null {
  const m = DECIMAL_RE.exec(input.trim());
  if (!m) return null;
  const [, sign, intRaw, fracRaw = '', expRaw] = m;
  if (intRaw === '' && fracRaw === '') return null;
  if (expRaw !== undefined && Math.abs(Number(expRaw)) > 60) return null;
  const all = intRaw + fracRaw;
  const digits = all.replace(/^0+/, '');
  if (digits === '') return '0';
  // `point` is where the decimal point sits within `digits`.
  const point = intRaw.length - (all.length - digits.length) + (expRaw === undefined ? 0 : Number(expRaw));
  let intPart: string;
  let fracPart: string;
  if (point <= 0) {
    intPart = '0';
    fracPart = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    intPart = digits + '0'.repeat(point - digits.length);
    fracPart = '';
  } else {
    intPart = digits.slice(0, point);
    fracPart = digits.slice(point);
  }
  fracPart = fracPart.replace(/0+$/, '');
  const out = fracPart ? `${intPart}.${fracPart}` : intPart;
  return sign === '-' && out !== '0' ? `-${out}` : out;
}

/** Compare two canonical decimal strings (from parseDecimal): -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  // Rounding to the nearest double is monotonic: decimals whose doubles differ are in the
  // doubles' order. Only equal doubles need the exact comparison.
  const x = Number(a);
  const y = Number(b);
  if (x !== y) return x < y ? -1 : 1;
  const negA = a.startsWith('-');
  const negB = b.startsWith('-');
  if (negA !== negB) return negA ? -1 : 1;
  const abs = compareAbs(negA ? a.slice(1) : a, negB ? b.slice(1) : b);
  return negA ? -abs : abs;
}

function compareAbs(a: string, b: string): number {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const len = Math.max(af.length, bf.length);
  const pa = af.padEnd(len, '0');
  const pb = bf.padEnd(len, '0');
  return pa === pb ? 0 : pa < pb ? -1 : 1;
}

/**
 * Round a canonical decimal string to `places` decimals, half away from zero, and render
 * exactly that many decimals ("1.5" -> "1.500000").
 */
export function roundDecimal(value: string, places: number): string {
  const neg = value.startsWith('-');
  const [intPart, fracPart = ''] = (neg ? value.slice(1) : value).split('.');
  let kept = intPart + fracPart.padEnd(places, '0').slice(0, places);
  if ((fracPart[places] ?? '0') >= '5') kept = incrementDigits(kept);
  const intLen = kept.length - places;
  const out = places > 0 ? `${kept.slice(0, intLen) || '0'}.${kept.slice(intLen)}` : kept;
  return neg && /[1-9]/.test(kept) ? `-${out}` : out;
}

/** ZERO_PADS[n] is n zeros: one shared string per length, none made per value. */
const ZERO_PADS = Array.from({ length: 39 }, (_, n) => '0'.repeat(n));

/**
 * PostgreSQL's text of a NUMERIC (digits, maybe a '-' and a fraction; 'NaN' and 'Infinity'
 * pass through) with exactly `places` decimals, rounded half away from zero: the text
 * `round(x, places)::text` prints, made in JS so that the hot reads fetch stored values as
 * they are. Exact (string arithmetic only); padding is the common case, since stored prices
 * rarely carry more places than are served.
 */
export function fixedPlaces(text: string, places: number): string {
  const dot = text.indexOf('.');
  if (dot < 0) {
    const last = text.charCodeAt(text.length - 1);
    if (last < 48 || last > 57) return text;
    return places === 0 ? text : `${text}.${ZERO_PADS[places]}`;
  }
  const have = text.length - dot - 1;
  return have > places ? roundDecimal(text, places) : text + ZERO_PADS[places - have];
}

function incrementDigits(d: string): string {
  const arr = d.split('');
  let i = arr.length - 1;
  while (i >= 0) {
    if (arr[i] === '9') {
      arr[i] = '0';
      i--;
    } else {
      arr[i] = String(Number(arr[i]) + 1);
      return arr.join('');
    }
  }
  return '1' + arr.join('');
}

/**
 * Render a computed (floating-point) value with `places` decimals, half away from zero on
 * the double's exact value; non-finite values are null.
 */
export function formatFloat(value: number | null | undefined, places: number): string | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  // toFixed rounds |value|'s exact binary value to the nearest, ties to the larger magnitude.
  if (value >= 0) return value.toFixed(places);
  const s = (-value).toFixed(places);
  return s === zeroWith(places) ? s : `-${s}`;
}

const zeros: string[] = [];

/** "0", "0.0", "0.00", ...: zero written with `places` decimals. */
function zeroWith(places: number): string {
  return (zeros[places] ??= places === 0 ? '0' : `0.${'0'.repeat(places)}`);
}
