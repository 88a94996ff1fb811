import { DEMO_SYMBOLS, aggregate, demoFundingRate, demoPerpOf, demoSpotDay } from '../../src/domain/demo-data';

const BTC = DEMO_SYMBOLS[0];
const DAY = Date.UTC(2026, 0, 10);

describe('demo data', () => {
  it('is deterministic: the same day twice gives the same candles', () => {
    expect(demoSpotDay(BTC, DAY)).toEqual(demoSpotDay(BTC, DAY));
  });

  it('has valid, continuous OHLC with realistic magnitudes', () => {
    const day = demoSpotDay(BTC, DAY);
    expect(day).toHaveLength(1440);
    for (let i = 0; i < day.length; i++) {
      const c = day[i];
      expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close));
      expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close));
      if (i > 0) expect(c.open).toBe(day[i - 1].close);
    }
    // Days join up, whatever resolution the next day is generated at.
    expect(demoSpotDay(BTC, DAY + 86_400_000)[0].open).toBe(day[1439].close);
    expect(demoSpotDay(BTC, DAY + 86_400_000, 3_600_000)[0].open).toBe(day[1439].close);
    expect(day[0].open).toBeGreaterThan(10_000);
    expect(day[0].open).toBeLessThan(500_000);
  });

  it('prices the perpetual a few basis points over spot', () => {
    const spot = demoSpotDay(BTC, DAY);
    const perp = demoPerpOf(BTC, spot);
    const basis = perp.map((p, i) => p.close / spot[i].close - 1);
    const mean = basis.reduce((a, b) => a + b, 0) / basis.length;
    expect(mean).toBeGreaterThan(0.00005);
    expect(mean).toBeLessThan(0.001);
  });

  it('aggregates minutes into hours by OHLCV rules', () => {
    const hours = aggregate(demoSpotDay(BTC, DAY), 3_600_000);
    expect(hours).toHaveLength(24);
    const first = demoSpotDay(BTC, DAY).slice(0, 60);
    expect(hours[0]).toMatchObject({
      time: DAY,
      open: first[0].open,
      close: first[59].close,
      high: Math.max(...first.map((c) => c.high)),
      low: Math.min(...first.map((c) => c.low)),
    });
  });

  it('keeps funding rates at realistic hourly magnitudes with 8 decimals', () => {
    const r = demoFundingRate(BTC, DAY);
    expect(Math.abs(r)).toBeLessThan(0.0002);
    expect(r.toFixed(8)).toBe(String(Number(r.toFixed(8)).toFixed(8)));
  });
});
