/**
 * The technical features of the catalogue, computed over a whole candle series (oldest
 * first). Each output array is aligned with the input; NaN where a value cannot be computed
 * (warm-up, zero volume, zero band width), which the write stores as NULL.
 */
import { TECHNICAL_FEATURES, type TechnicalFeature } from './feature-catalogue';
import { atr, bollinger, empty, macd, rsi, type Out } from './indicators';

export interface Bars {
  open: ArrayLike<number>;
  high: ArrayLike<number>;
  low: ArrayLike<number>;
  close: ArrayLike<number>;
  volume: ArrayLike<number>;
}

/** Every feature's column: what technicalFeatures returns, or the arrays it may write into (each at least as long as the bars). */
export type FeatureColumns = Record<TechnicalFeature, Out>;

/** Columns of `capacity` values for technicalFeatures to write into, chunk after chunk. */
export function featureColumns(capacity: number): FeatureColumns {
  return Object.fromEntries(TECHNICAL_FEATURES.map((f) => [f, new Float64Array(capacity)])) as FeatureColumns;
}

const WINDOW = 20;

/** a / b x scale; NaN when b is 0 (or either has no value). */
const ratio = (a: number, b: number, scale = 1) => (b === 0 ? NaN : (a / b) * scale);

/** The features of `b`, into `into`'s arrays (views of their first n values) when given. */
export function technicalFeatures(b: Bars, into?: FeatureColumns): FeatureColumns {
  const n = b.close.length;
  const m = macd(b.close, 12, 26, 9, into && { macd: into.macd, signal: into.macd_signal, histogram: into.macd_histogram });
  const bb = bollinger(b.close, WINDOW, 2, into && { upper: into.bb_upper, middle: into.bb_middle, lower: into.bb_lower });
  const vwap = empty(n, into?.vwap_20);
  const twap = empty(n, into?.twap_20);
  // Window-local sums (see bollinger): the same value whatever the computation started from.
  const pvAt = new Float64Array(n);
  const ohlc4 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    pvAt[i] = ((b.high[i] + b.low[i] + b.close[i]) / 3) * b.volume[i];
    ohlc4[i] = (b.open[i] + b.high[i] + b.low[i] + b.close[i]) / 4;
  }
  for (let i = WINDOW - 1; i < n; i++) {
    let pv = 0;
    let vol = 0;
    let tw = 0;
    for (let j = i - WINDOW + 1; j <= i; j++) {
      pv += pvAt[j];
      vol += b.volume[j];
      tw += ohlc4[j];
    }
    vwap[i] = vol > 0 ? pv / vol : NaN;
    twap[i] = tw / WINDOW;
  }
  const bbWidth = empty(n, into?.bb_width);
  const bbPct = empty(n, into?.bb_pct);
  const vsVwap = empty(n, into?.price_vs_vwap_20);
  for (let i = 0; i < n; i++) {
    bbWidth[i] = ratio(bb.upper[i] - bb.lower[i], bb.middle[i]);
    bbPct[i] = ratio(b.close[i] - bb.lower[i], bb.upper[i] - bb.lower[i]);
    vsVwap[i] = ratio(b.close[i] - vwap[i], vwap[i], 100);
  }
  return {
    rsi_9: rsi(b.close, 9, into?.rsi_9),
    rsi_14: rsi(b.close, 14, into?.rsi_14),
    rsi_21: rsi(b.close, 21, into?.rsi_21),
    macd: m.macd,
    macd_signal: m.signal,
    macd_histogram: m.histogram,
    bb_upper: bb.upper,
    bb_middle: bb.middle,
    bb_lower: bb.lower,
    bb_width: bbWidth,
    bb_pct: bbPct,
    atr_14: atr(b.high, b.low, b.close, 14, into?.atr_14),
    vwap_20: vwap,
    twap_20: twap,
    price_vs_vwap_20: vsVwap,
  };
}
