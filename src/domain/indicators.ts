/**
 * Technical indicators over a full series, TA-Lib's definitions and seeding (values agree
 * with TA-Lib to 1e-6; test/unit/indicators.test.ts checks vectors TA-Lib produced).
 * Every function returns an array aligned with its input; warm-up positions are NaN (no value).
 * A value at i depends only on inputs at <= i. The outputs are arrays of doubles, not arrays
 * of boxed numbers: a recompute of a long history makes every chunk's outputs garbage, and
 * unboxed they are a tenth of the heap's work.
 */

export type Series = ArrayLike<number>;
/** One value per input bar; NaN where there is none. */
export type Out = Float64Array;

/** An output of `n` values, none yet: `into` (its first n) when given, else a new array. */
export const empty = (n: number, into?: Float64Array): Out => (into ? into.subarray(0, n) : new Float64Array(n)).fill(NaN);

/**
 * EMA with TA-Lib seeding: the first value, at `from + period - 1`, is the SMA of the
 * `period` inputs ending there; then k = 2 / (period + 1).
 */
export function ema(x: Series, period: number, from = 0, into?: Float64Array): Out {
  const out = empty(x.length, into);
  const first = from + period - 1;
  if (first >= x.length) return out;
  let sum = 0;
  for (let i = from; i <= first; i++) sum += x[i];
  let prev = sum / period;
  out[first] = prev;
  const k = 2 / (period + 1);
  for (let i = first + 1; i < x.length; i++) {
    prev = (x[i] - prev) * k + prev;
    out[i] = prev;
  }
  return out;
}

/** RSI, Wilder smoothing; first value at index `period`. */
export function rsi(close: Series, period: number, into?: Float64Array): Out {
  const out = empty(close.length, into);
  if (close.length <= period) return out;
  let gain = 0;
  let loss = 0;
  for (let i = 1; i <= period; i++) {
    const d = close[i] - close[i - 1];
    if (d > 0) gain += d;
    else loss -= d;
  }
  gain /= period;
  loss /= period;
  const value = () => (gain + loss === 0 ? 0 : (100 * gain) / (gain + loss));
  out[period] = value();
  for (let i = period + 1; i < close.length; i++) {
    const d = close[i] - close[i - 1];
    gain = (gain * (period - 1) + (d > 0 ? d : 0)) / period;
    loss = (loss * (period - 1) + (d < 0 ? -d : 0)) / period;
    out[i] = value();
  }
  return out;
}

export interface Macd {
  macd: Out;
  signal: Out;
  histogram: Out;
}

/**
 * MACD as TA-Lib computes it: both EMAs start at slow - 1 (the fast one seeded with the SMA
 * of its last `fast` inputs there), the signal is an EMA of the MACD line seeded likewise,
 * and all three outputs start at slow + signal - 2.
 */
export function macd(close: Series, fast = 12, slow = 26, signalPeriod = 9, into?: Macd): Macd {
  const n = close.length;
  const slowEma = ema(close, slow);
  const fastEma = ema(close, fast, slow - fast);
  const start = slow - 1;
  const compact = new Float64Array(Math.max(0, n - start));
  for (let i = start; i < n; i++) compact[i - start] = fastEma[i] - slowEma[i];
  const sig = ema(compact, signalPeriod);
  const out: Macd = { macd: empty(n, into?.macd), signal: empty(n, into?.signal), histogram: empty(n, into?.histogram) };
  for (let j = signalPeriod - 1; j < compact.length; j++) {
    const i = j + start;
    out.macd[i] = compact[j];
    out.signal[i] = sig[j];
    out.histogram[i] = compact[j] - sig[j];
  }
  return out;
}

export interface Bollinger {
  upper: Out;
  middle: Out;
  lower: Out;
}

/**
 * Bollinger bands on the SMA with population standard deviation. Each window is summed on
 * its own (20 additions) rather than with a running sum: a running sum of squares of prices
 * near 65,000 drifts over a year of minutes, and a value would then depend on where the
 * computation started.
 */
export function bollinger(close: Series, period = 20, k = 2, into?: Bollinger): Bollinger {
  const n = close.length;
  const out: Bollinger = { upper: empty(n, into?.upper), middle: empty(n, into?.middle), lower: empty(n, into?.lower) };
  for (let i = period - 1; i < n; i++) {
    let sum = 0;
    for (let j = i - period + 1; j <= i; j++) sum += close[j];
    const mean = sum / period;
    let sq = 0;
    for (let j = i - period + 1; j <= i; j++) sq += (close[j] - mean) * (close[j] - mean);
    const sd = Math.sqrt(sq / period);
    out.middle[i] = mean;
    out.upper[i] = mean + k * sd;
    out.lower[i] = mean - k * sd;
  }
  return out;
}

/** Average true range, Wilder smoothing; first value at index `period` (SMA of TR 1..period). */
export function atr(high: Series, low: Series, close: Series, period = 14, into?: Float64Array): Out {
  const n = close.length;
  const out = empty(n, into);
  if (n <= period) return out;
  const tr = (i: number) => Math.max(high[i] - low[i], Math.abs(high[i] - close[i - 1]), Math.abs(low[i] - close[i - 1]));
  let sum = 0;
  for (let i = 1; i <= period; i++) sum += tr(i);
  let prev = sum / period;
  out[period] = prev;
  for (let i = period + 1; i < n; i++) {
    prev = (prev * (period - 1) + tr(i)) / period;
    out[i] = prev;
  }
  return out;
}
