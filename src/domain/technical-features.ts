/**
 * The technical features of the catalogue, computed over a whole candle series (oldest
 * first). Each output array is aligned with the input; null where a value cannot be
 * computed (warm-up, zero volume, zero band width).
 */
import type { TechnicalFeature } from './feature-catalogue';
import { atr, bollinger, macd, rsi, type Out } from './indicators';

export interface Bars {
  open: ReadonlyArray<number>;
  high: ReadonlyArray<number>;
  low: ReadonlyArray<number>;
  close: ReadonlyArray<number>;
  volume: ReadonlyArray<number>;
}


const WINDOW = 20;

function ratio(a: number | null, b: number | null, scale = 1): number | null {
  if (a === null || b === null || b === 0) return null;
  return (a / b) * scale;
}

export function technicalFeatures(b: Bars): Record<TechnicalFeature, Out> {
  const n = b.close.length;
  const m = macd(b.close);
  const bb = bollinger(b.close, WINDOW, 2);
  const vwap: Out = new Array(n).fill(null);
  const twap: Out = new Array(n).fill(null);
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
    vwap[i] = vol > 0 ? pv / vol : null;
    twap[i] = tw / WINDOW;
  }
  const bbWidth: Out = bb.middle.map((mid, i) => (mid === null ? null : ratio(bb.upper[i]! - bb.lower[i]!, mid)));
  const bbPct: Out = bb.middle.map((mid, i) => (mid === null ? null : ratio(b.close[i] - bb.lower[i]!, bb.upper[i]! - bb.lower[i]!)));
  const vsVwap: Out = vwap.map((v, i) => (v === null ? null : ratio(b.close[i] - v, v, 100)));
  return {
    rsi_9: rsi(b.close, 9),
    rsi_14: rsi(b.close, 14),
    rsi_21: rsi(b.close, 21),
    macd: m.macd,
    macd_signal: m.signal,
    macd_histogram: m.histogram,
    bb_upper: bb.upper,
    bb_middle: bb.middle,
    bb_lower: bb.lower,
    bb_width: bbWidth,
    bb_pct: bbPct,
    atr_14: atr(b.high, b.low, b.close, 14),
    vwap_20: vwap,
    twap_20: twap,
    price_vs_vwap_20: vsVwap,
  };
}
