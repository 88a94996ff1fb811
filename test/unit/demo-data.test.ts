import {
  DEMO_BYBIT_4H_SYMBOL,
  DEMO_PERP_MODELS,
  DEMO_SYMBOLS,
  aggregate,
  demoContext,
  demoFundingRate,
  demoPerpOf,
  demoSettlementHours,
  demoSettlementRate,
  demoSettlements,
  demoSpotDay,
  type DemoPerpetual,
} from '../../src/domain/demo-data';

const BTC = DEMO_SYMBOLS[0];
const DAY = Date.UTC(2026, 0, 10);
const HOUR = 3_600_000;
const PERPETUALS = Object.keys(DEMO_PERP_MODELS) as DemoPerpetual[];

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

  it('gives each perpetual exchange candles of its own, each a few basis points over spot with valid OHLC', () => {
    const spot = demoSpotDay(BTC, DAY);
    const closes = PERPETUALS.map((venue) => {
      const perp = demoPerpOf(BTC, spot, venue);
      expect(perp).toHaveLength(1440);
      for (const c of perp) {
        expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close));
        expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close));
      }
      const mean = perp.reduce((a, p, i) => a + p.close / spot[i].close - 1, 0) / perp.length;
      expect(mean).toBeGreaterThan(0.00005);
      expect(mean).toBeLessThan(0.001);
      return perp.map((c) => c.close).join();
    });
    expect(new Set(closes).size).toBe(PERPETUALS.length);
  });

  it('when Bybit settles, then the 4-hourly symbol every 4 hours and the others every 8, as Binance USD-M (Hyperliquid hourly)', () => {
    expect(DEMO_SYMBOLS.map((s) => s.symbol)).toContain(DEMO_BYBIT_4H_SYMBOL);
    for (const sym of DEMO_SYMBOLS) {
      expect(demoSettlementHours(sym, 'bybit-perp')).toBe(sym.symbol === DEMO_BYBIT_4H_SYMBOL ? 4 : 8);
      expect(demoSettlementHours(sym, 'binance-perp')).toBe(8);
      expect(demoSettlementHours(sym, 'perp')).toBe(1);
      for (const venue of PERPETUALS) {
        const hours = demoSettlementHours(sym, venue);
        const day = demoSettlements(sym, venue, DAY, DAY + 24 * HOUR);
        expect(day).toHaveLength(24 / hours);
        expect(day.map((r) => r.time)).toEqual(Array.from({ length: 24 / hours }, (_, i) => DAY + (i + 1) * hours * HOUR));
        expect(day.every((r) => /^-?\d\.\d{8}$/.test(r.rate) && Number(r.rate) === demoSettlementRate(sym, venue, r.time))).toBe(true);
      }
    }
  });

  it('when a venue settles every h hours, then it pays about h hours of the hourly rate, with draws of its own', () => {
    const eth = DEMO_SYMBOLS.find((s) => s.symbol === DEMO_BYBIT_4H_SYMBOL)!;
    const times = Array.from({ length: 90 }, (_, i) => DAY + (i + 1) * 8 * HOUR);
    for (const [sym, venue, hours] of [[BTC, 'bybit-perp', 8], [eth, 'bybit-perp', 4], [BTC, 'binance-perp', 8]] as const) {
      const excess = times.map((t) => demoSettlementRate(sym, venue, t) - hours * demoFundingRate(sym, t));
      const sd = Math.sqrt(excess.reduce((a, x) => a + x * x, 0) / excess.length);
      // The noise's standard deviation is 0.00002 per 8 hours.
      expect(sd).toBeGreaterThan((0.00001 * hours) / 8);
      expect(sd).toBeLessThan((0.00003 * hours) / 8);
    }
    expect(times.map((t) => demoSettlementRate(BTC, 'bybit-perp', t))).not.toEqual(times.map((t) => demoSettlementRate(BTC, 'binance-perp', t)));
    expect(times.map((t) => demoSettlementRate(BTC, 'perp', t))).toEqual(times.map((t) => demoFundingRate(BTC, t)));
  });

  it("when a perpetual's context is drawn, then its predicted rate is its next settlement's", () => {
    const eth = DEMO_SYMBOLS.find((s) => s.symbol === DEMO_BYBIT_4H_SYMBOL)!;
    const at = DAY + 5 * HOUR + 7 * 60_000;
    expect(demoContext(eth, 'bybit-perp', at, 3000, 2999).fundingRate).toBe(demoSettlementRate(eth, 'bybit-perp', DAY + 8 * HOUR).toFixed(8));
    expect(demoContext(eth, 'bybit-perp', DAY + 3 * HOUR, 3000, 2999).fundingRate).toBe(demoSettlementRate(eth, 'bybit-perp', DAY + 4 * HOUR).toFixed(8));
    expect(demoContext(BTC, 'bybit-perp', DAY + 3 * HOUR, 65000, 64990).fundingRate).toBe(demoSettlementRate(BTC, 'bybit-perp', DAY + 8 * HOUR).toFixed(8));
    expect(demoContext(BTC, 'perp', at, 65000, 64990).fundingRate).toBe(demoFundingRate(BTC, DAY + 6 * HOUR).toFixed(8));
    const oi = PERPETUALS.map((venue) => demoContext(BTC, venue, at, 65000, 64990).openInterest);
    expect(new Set(oi).size).toBe(PERPETUALS.length);
  });

  it("keeps Hyperliquid's and Binance USD-M's draws (reference values)", () => {
    const spot = demoSpotDay(BTC, DAY);
    const usdm = demoPerpOf(BTC, spot, 'binance-perp');
    expect(usdm[0]).toEqual({ time: DAY, open: 70817.1, close: 70739.78, high: 70820.84, low: 70736.29, volume: 22.4656 });
    expect(demoSettlementRate(BTC, 'binance-perp', DAY + 8 * HOUR)).toBe(-0.00010278);
    expect(demoSettlementRate(DEMO_SYMBOLS[1], 'binance-perp', DAY + 16 * HOUR)).toBe(-0.00011454);
    expect(demoContext(BTC, 'binance-perp', DAY + 100 * 60_000, usdm[100].close, spot[100].close)).toEqual({
      openInterest: '30603.424',
      markPrice: '72302.53',
      oraclePrice: '72280.62',
      midPrice: '72302.548',
      fundingRate: '-0.00010278',
      premium: '0.00030312',
    });
    const perp = demoPerpOf(BTC, spot);
    expect(demoContext(BTC, 'perp', DAY + 100 * 60_000, perp[100].close, spot[100].close)).toEqual({
      openInterest: '12204.592',
      markPrice: '72301.92',
      oraclePrice: '72280.62',
      midPrice: '72304.412',
      fundingRate: '0.00000049',
      premium: '0.00029468',
    });
  });
});
