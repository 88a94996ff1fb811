/**
 * The demo's second part (DemoSeedService.seedLater), served with `binance-perp`: its series
 * with 8-hourly funding stored with interval 8, two days of context minutes and their rollups
 * for every perpetual, nothing twice; then the demo feed extends candles, funding and context.
 */
import { openServices, type Services } from '../../src/composition';
import { DEMO_SYMBOLS } from '../../src/domain/demo-data';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';

const MIN = 60_000;
const HOUR = 3_600_000;

describe.each(databaseCases())('the demo seed of the further exchanges on $name', ({ create }) => {
  let s: Services;
  let drop: (() => Promise<void>) | undefined;
  let clock = Date.UTC(2026, 5, 15, 10, 30, 20);
  const seeded = clock;

  beforeAll(async () => {
    const db = await create();
    drop = db?.drop;
    s = await openServices(testConfig({ EXCHANGES: 'perp,spot,binance-perp', ...(db ? { DATABASE_URL: db.url } : {}) }), {
      ...(db ? {} : { dataDir: 'memory' }),
      clock: () => clock,
    });
    await s.seeder.seed(seeded);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await drop?.();
  });

  const idOf = async (exchange: string, symbol = 'BTC-USDT') => (await s.store.series.idOf({ exchange, symbol }))!;
  const count = async (sql: string, params: unknown[]) => Number((await s.store.db.query<{ n: string }>(sql, params))[0].n);

  it('when the first part is seeded, then binance-perp has no series and no perpetual has a context yet', async () => {
    expect(await s.store.series.idOf({ exchange: 'binance-perp', symbol: 'BTC-USDT' })).toBeUndefined();
    expect(await s.store.derivatives.latestTime(await idOf('perp'))).toBeNull();
  });

  it('when seeded later, then every demo symbol trades on binance-perp with 8-hourly funding (interval 8) and both perpetuals have two days of context', async () => {
    let symbolsDone = 0;
    const summary = await s.seeder.seedLater(seeded, undefined, () => symbolsDone++);
    expect(summary).toMatchObject({ series: DEMO_SYMBOLS.length, context: 2 * DEMO_SYMBOLS.length * 2 * 1440 });
    expect(symbolsDone).toBe(DEMO_SYMBOLS.length);
    const usdm = await idOf('binance-perp');
    const funding = (await s.store.funding.pages([usdm], new Date(seeded - 3 * 24 * HOUR), new Date(seeded), 100)).get(usdm)!;
    expect(funding.length).toBe(9);
    expect(funding.every((r) => Date.parse(r.time) % (8 * HOUR) === 0 && r.intervalHours === '8')).toBe(true);
    for (const exchange of ['perp', 'binance-perp']) {
      const id = await idOf(exchange);
      expect(await count(`SELECT count(*) AS n FROM derivatives WHERE series_id = $1 AND timeframe = '1m'`, [id])).toBe(2 * 1440);
      expect(await count(`SELECT count(*) AS n FROM derivatives WHERE series_id = $1 AND timeframe = '1h'`, [id])).toBeGreaterThanOrEqual(47);
    }
    const markets = await s.markets.list({ exchange: 'binance-perp' });
    expect(markets[0]).toMatchObject({ fundingIntervalHours: 8 });
    expect(markets[0].coverage.map((c) => c.timeframe)).toEqual(['1m', '5m', '15m', '1h', '4h', '1d', 'funding', 'derivatives']);
    expect(await s.seeder.seedLater(seeded)).toBeNull();
  }, 180_000);

  it('when the demo feed ticks later, then binance-perp candles, its next settlement and every perpetual context minute are appended', async () => {
    const usdm = await idOf('binance-perp');
    const perp = await idOf('perp');
    const before = (await s.store.funding.latestTime(usdm))!;
    clock = before + 8 * HOUR + 5 * MIN;
    await s.demoFeed.tick();
    expect(await s.store.funding.latestTime(usdm)).toBe(before + 8 * HOUR);
    const last = Math.floor(clock / MIN) * MIN - MIN;
    expect(await s.store.derivatives.latestTime(perp)).toBe(last);
    expect(await s.store.derivatives.latestTime(usdm)).toBe(last);
    const [row] = await s.store.db.query<{ oi: string }>(`SELECT open_interest::text AS oi FROM derivatives WHERE series_id = $1 AND timeframe = '1m' AND time = $2`, [usdm, new Date(last)]);
    expect(Number(row.oi)).toBeGreaterThan(0);
  }, 120_000);
});
