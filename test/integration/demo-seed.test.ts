/**
 * The demo seed against real PostgreSQL engines: what it stores, and that seeding again at the
 * same instant changes nothing. The seed of an empty database rolls up and computes features
 * from the bars it generated (as a first import does); the second seed takes the database path
 * (SQL rollups over what is stored, features read back), and must store the same candles and
 * features.
 */
import { CandlesRepository } from '../../src/db/candles.repository';
import type { Services } from '../../src/composition';
import { DEMO_SYMBOLS } from '../../src/domain/demo-data';
import { TECHNICAL_FEATURES } from '../../src/domain/feature-catalogue';
import { databaseCases } from '../helpers/databases';

describe.each(databaseCases())('the demo seed on $name', (kase) => {
  let s: Services;
  let first: Awaited<ReturnType<Services['seeder']['seed']>>;
  /** In the middle of a day and of an hour: the current 1h, 4h and 1d buckets are still open. */
  const now = Date.UTC(2026, 5, 15, 10, 30, 20);
  let fromMemoryWrites: jest.SpiedFunction<CandlesRepository['writeEncoded']>;
  beforeAll(async () => {
    s = await kase.open();
    fromMemoryWrites = jest.spyOn(CandlesRepository.prototype, 'writeEncoded');
    first = await s.seeder.seed(now);
  }, 120_000);
  afterAll(async () => {
    fromMemoryWrites?.mockRestore();
    await s?.close();
    await kase.cleanup();
  });

  /**
   * Every stored value, digested in the database per series and timeframe (the rows' text in
   * order, hashed): equal digests are equal rows, and a difference names its series and timeframe
   * without carrying half a million rows to the test.
   */
  const digest = (table: string, columns: string) =>
    s.store.db.query<{ k: string; n: number; h: string }>(
      `SELECT series_id || ':' || timeframe AS k, count(*)::int8 AS n, md5(string_agg(ROW(time, ${columns})::text, ';' ORDER BY time)) AS h
       FROM ${table} GROUP BY series_id, timeframe ORDER BY series_id, timeframe`,
    );
  const stored = async () => ({
    candles: await digest('candles', 'open, high, low, close, volume, derived, quote_volume, trades'),
    features: await digest('features', TECHNICAL_FEATURES.join(', ')),
  });

  it('has every demo symbol on both venues, every timeframe, and funding only on the perp venue', async () => {
    const rows = await s.store.db.query<{ exchange: string; symbol: string; timeframe: string; n: number; first: Date; last: Date }>(
      `SELECT s.exchange, s.symbol, c.timeframe, count(*)::int8 AS n, min(time) AS first, max(time) AS last
       FROM candles c JOIN series s ON s.id = c.series_id GROUP BY 1, 2, 3`,
    );
    expect(new Set(rows.map((r) => `${r.exchange}:${r.symbol}`)).size).toBe(DEMO_SYMBOLS.length * 2);
    for (const r of rows.filter((x) => x.timeframe === '1m')) {
      expect(r.last.getTime()).toBe(Date.UTC(2026, 5, 15, 10, 29)); // last closed minute
      expect(r.first.getTime()).toBe(Date.UTC(2026, 5, 8, 10)); // 7 days of minutes
    }
    for (const r of rows.filter((x) => x.timeframe === '1h')) {
      expect(r.last.getTime()).toBe(Date.UTC(2026, 5, 15, 9)); // last closed hour
      expect(r.first.getTime()).toBeLessThanOrEqual(Date.UTC(2026, 5, 15) - 400 * 86_400_000);
    }
    for (const r of rows.filter((x) => x.timeframe === '1d')) expect(r.last.getTime()).toBe(Date.UTC(2026, 5, 14));
    expect(new Set(rows.map((r) => r.timeframe))).toEqual(new Set(['1m', '5m', '15m', '1h', '4h', '1d']));
    const funding = await s.store.db.query<{ exchange: string; n: number }>(
      'SELECT s.exchange, count(*)::int8 AS n FROM funding_rates f JOIN series s ON s.id = f.series_id GROUP BY 1',
    );
    expect(funding).toEqual([{ exchange: 'perp', n: DEMO_SYMBOLS.length * 60 * 24 }]);
  });

  it('leaves gaps in exactly one series', async () => {
    const rows = await s.store.db.query<{ exchange: string; symbol: string; n: number }>(
      `SELECT s.exchange, s.symbol, count(*)::int8 AS n FROM candles c JOIN series s ON s.id = c.series_id
       WHERE c.timeframe = '1m' GROUP BY 1, 2`,
    );
    const full = Math.max(...rows.map((r) => r.n));
    expect(rows.filter((r) => r.n < full)).toEqual([{ exchange: 'spot', symbol: 'SOL-USDT', n: full - 52 }]);
  });

  it('keeps the basis at a few basis points', async () => {
    const [b] = await s.store.db.query<{ basis: number }>(
      `SELECT avg(p.close / sp.close - 1)::float8 AS basis FROM candles p
       JOIN series ps ON ps.id = p.series_id AND ps.exchange = 'perp'
       JOIN series ss ON ss.symbol = ps.symbol AND ss.exchange = 'spot'
       JOIN candles sp ON sp.series_id = ss.id AND sp.timeframe = p.timeframe AND sp.time = p.time
       WHERE p.timeframe = '1h'`,
    );
    expect(b.basis).toBeGreaterThan(0.0001);
    expect(b.basis).toBeLessThan(0.001);
  });

  it('when the empty database was seeded, then every series\' candles and rolled-up timeframes were written from memory', async () => {
    // 1h and 1m, then 5m, 15m, 1h rolled from the minutes, 4h and 1d.
    expect(fromMemoryWrites).toHaveBeenCalledTimes(first.series * 7);
    const features = await s.store.db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM features WHERE timeframe <> 'funding'");
    expect(features[0].n).toBe(first.featureRows);
  });

  it('when seeded again at the same instant, then the database path stores the same candles and features: nothing changes', async () => {
    const fromMemory = await stored();
    fromMemoryWrites.mockClear();
    const again = await s.seeder.seed(now);
    expect(fromMemoryWrites).not.toHaveBeenCalled();
    expect(again.featureRows).toBe(first.featureRows);
    const fromDatabase = await stored();
    expect(fromMemory.candles.length).toBe(first.series * 6);
    expect(fromDatabase.candles).toEqual(fromMemory.candles);
    expect(fromDatabase.features).toEqual(fromMemory.features);
  }, 180_000);
});
