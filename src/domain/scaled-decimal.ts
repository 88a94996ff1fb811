/**
 * Plain decimals as an exact integer mantissa and a scale (digits after the point), kept in
 * doubles while they fit the exact integers: how a first import folds its rollups in memory
 * exactly as ROLLUP_SQL computes them in NUMERIC (imported-bars.ts).
 */

export const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
const MAX_SCALE = 22;

/**
 * The double PostgreSQL's text of the decimal `m` x 10^-s reads as in the feature precompute
 * (candle-history.ts `numberIn`: the exact integer divided by the power of ten).
 */
export const doubleOf = (m: number, s: number) => (s > 0 ? m / POW10[s] : m);

/**
 * A plain decimal's text (`-?\d+(\.\d+)?`) as mantissa and scale into `out[at]`, `out[at + 1]`;
 * false when it has another form or its digits do not fit an exact integer.
 */
export function scaledDecimal(text: string, out: Float64Array, at: number): boolean {
  let i = 0;
  const neg = text.charCodeAt(0) === 45;
  if (neg) i++;
  let m = 0;
  let s = -1;
  const digitsFrom = i;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && s < 0) s = 0;
    else if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      if (s >= 0) s++;
    } else return false;
  }
  if (i === digitsFrom || s === 0 || m > Number.MAX_SAFE_INTEGER || s > MAX_SCALE) return false;
  out[at] = neg ? -m : m;
  out[at + 1] = s < 0 ? 0 : s;
  return true;
}

/** A value of `m` at scale `s` brought to scale `to` (>= s); NaN when it leaves the exact integers. */
export function rescale(m: number, s: number, to: number): number {
  const v = to === s ? m : m * POW10[to - s];
  return Math.abs(v) <= Number.MAX_SAFE_INTEGER ? v : NaN;
}

/**
 * -1, 0, 1: the exact order of two decimals (NaN: they cannot be compared exactly). Their
 * doubles are correctly rounded, and rounding keeps order: only equal doubles need the exact
 * comparison.
 */
export function compareScaled(am: number, as: number, bm: number, bs: number): number {
  const da = doubleOf(am, as);
  const db = doubleOf(bm, bs);
  if (da !== db) return da < db ? -1 : 1;
  const s = Math.max(as, bs);
  const a = rescale(am, as, s);
  const b = rescale(bm, bs, s);
  return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
}

