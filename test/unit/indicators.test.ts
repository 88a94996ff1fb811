/**
 * Indicators against vectors TA-Lib itself produced (scripts/talib-reference.js) over 600
 * bars with a flat stretch, zero-volume bars and a price gap: every value within 1e-6
 * relative (or 1e-6 absolute near zero), and the same warm-up.
 */
import { atr, bollinger, macd, rsi, type Out } from '../../src/domain/indicators';
import { featureColumns, technicalFeatures } from '../../src/domain/technical-features';
import { TECHNICAL_FEATURES } from '../../src/domain/feature-catalogue';
import ref from '../fixtures/talib-reference.json';

const close = ref.bars.map((b) => b.close);
const high = ref.bars.map((b) => b.high);
const low = ref.bars.map((b) => b.low);

function expectTalib(ours: Out, talib: { begIndex: number; values: number[] }): void {
  expect(ours.findIndex((v) => !Number.isNaN(v))).toBe(talib.begIndex);
  expect(ours.length - talib.begIndex).toBe(talib.values.length);
  talib.values.forEach((t, j) => {
    const v = ours[talib.begIndex + j];
    const tol = Math.max(1e-6 * Math.abs(t), 1e-6);
    if (Math.abs(v - t) > tol) throw new Error(`index ${talib.begIndex + j}: ours ${v}, TA-Lib ${t}`);
  });
}

describe('indicators match TA-Lib', () => {
  it.each([
    ['rsi_9', 9],
    ['rsi_14', 14],
    ['rsi_21', 21],
  ] as const)('%s (Wilder)', (name, period) => {
    const r = ref[name];
    expectTalib(rsi(close, period), { begIndex: r.begIndex, values: r.result.outReal });
  });

  it('MACD 12/26/9: line, signal and histogram', () => {
    const m = macd(close);
    const r = ref.macd;
    expectTalib(m.macd, { begIndex: r.begIndex, values: r.result.outMACD });
    expectTalib(m.signal, { begIndex: r.begIndex, values: r.result.outMACDSignal });
    expectTalib(m.histogram, { begIndex: r.begIndex, values: r.result.outMACDHist });
  });

  it('Bollinger 20/2 (population std)', () => {
    const b = bollinger(close);
    const r = ref.bbands;
    expectTalib(b.upper, { begIndex: r.begIndex, values: r.result.outRealUpperBand });
    expectTalib(b.middle, { begIndex: r.begIndex, values: r.result.outRealMiddleBand });
    expectTalib(b.lower, { begIndex: r.begIndex, values: r.result.outRealLowerBand });
  });

  it('ATR 14 (Wilder)', () => {
    expectTalib(atr(high, low, close), { begIndex: ref.atr_14.begIndex, values: ref.atr_14.result.outReal });
  });

  it('a value at t does not depend on later bars', () => {
    const full = rsi(close, 14);
    const prefix = rsi(close.slice(0, 400), 14);
    expect(prefix).toEqual(full.slice(0, 400));
    expect(macd(close.slice(0, 400)).signal).toEqual(macd(close).signal.slice(0, 400));
  });
});

describe('technical features', () => {
  it('when 20 bars in a row have no volume, then vwap_20 and price_vs_vwap_20 have no value (NaN, stored as NULL), not a rounding remainder', () => {
    const n = 60;
    const bars = {
      open: Array(n).fill(65_000.13),
      high: Array(n).fill(65_010.77),
      low: Array(n).fill(64_990.31),
      close: Array(n).fill(65_003.29),
      volume: Array.from({ length: n }, (_, i) => (i < 30 ? 1.3 + i * 0.7 : 0)),
    };
    const f = technicalFeatures(bars);
    expect(f.vwap_20[48]).not.toBeNaN();
    expect(f.vwap_20[49]).toBeNaN();
    expect(f.price_vs_vwap_20[59]).toBeNaN();
  });

  it('when prices are flat, then the bands coincide: width 0 and %B without a value (NaN, stored as NULL)', () => {
    const flat = Array(40).fill(100);
    const f = technicalFeatures({ open: flat, high: flat, low: flat, close: flat, volume: Array(40).fill(1) });
    expect(f.bb_width[39]).toBe(0);
    expect(f.bb_pct[39]).toBeNaN();
  });
});

describe('technical features written into given arrays', () => {
  it('when computed into reused arrays, chunk after chunk, then each result equals a computation into new arrays', () => {
    const bars = (from: number, to: number) => ({ open: close.slice(from, to), high: high.slice(from, to), low: low.slice(from, to), close: close.slice(from, to), volume: ref.bars.slice(from, to).map((b) => b.volume) });
    const into = featureColumns(600);
    for (const [from, to] of [[0, 600], [100, 350], [0, 40]]) {
      const reused = technicalFeatures(bars(from, to), into);
      const fresh = technicalFeatures(bars(from, to));
      for (const name of TECHNICAL_FEATURES) expect([name, reused[name]]).toEqual([name, fresh[name]]);
    }
  });
});
