/**
 * The demo's second part (DemoSeedService.seedLater), served with `binance-perp` and
 * `bybit-perp`: their series with 8-hourly funding stored with interval 8 (Bybit's 4-hourly
 * symbol's with 4), two days of context minutes and their rollups for every perpetual, nothing
 * twice; then the demo feed extends candles, funding and context.
 */
import { openServices, type Services } from '../../src/composition';
import { DEMO_BYBIT_4H_SYMBOL, DEMO_SYMBOLS, demoPerpOf, demoSettlementRate, demoSpotDay } from '../../src/domain/demo-data';
import type { FundingRate } from '../../src/domain/market';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const LATER = ['binance-perp', 'bybit-perp'];
const PERPETUALS = ['perp', ...LATER];

/** Rows settling every `hours` hours, stored with that interval and rate_hourly = rate / interval. */
function settledEvery(rows: readonly FundingRate[], hours: number): boolean {
  return rows.every(
    (r, i) =>
      Date.parse(r.time) % (hours * HOUR) === 0 &&
      (i === 0 || Date.parse(r.time) - Date.parse(rows[i - 1].time) === hours * HOUR) &&
      r.intervalHours === String(hours) &&
      Math.abs(Number(r.rateHourly) - Number(r.rate) / hours) <= 5e-9 + 1e-15,
  );
}

describe.each(databaseCases())('the demo seed of the further exchanges on $name', ({ create }) => {
  let s: Services;
  let drop: (() => Promise<void>) | undefined;
  let clock = Date.UTC(2026, 5, 15, 10, 30, 20);
  const seeded = clock;

  beforeAll(async () => {
    const db = await create();
    drop = db?.drop;
    s = await openServices(testConfig({ EXCHANGES: 'perp,spot,binance-perp,bybit-perp', ...(db ? { DATABASE_URL: db.url } : {}) }), {
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

  const funding = async (exchange: string, symbol: string, days: number) => {
    const id = await idOf(exchange, symbol);
    return (await s.store.funding.pages([id], new Date(seeded - days * DAY), new Date(seeded), 1000)).get(id)!;
  };

  it('when the first part is seeded, then binance-perp and bybit-perp have no series and no perpetual has a context yet', async () => {
    for (const exchange of LATER) expect(await s.store.series.idOf({ exchange, symbol: 'BTC-USDT' })).toBeUndefined();
    expect(await s.store.derivatives.latestTime(await idOf('perp'))).toBeNull();
  });

  it('when seeded later, then every demo symbol trades on binance-perp and bybit-perp with their settlements and every perpetual has two days of context', async () => {
    let steps = 0;
    const summary = await s.seeder.seedLater(seeded, undefined, () => steps++);
    expect(summary).toMatchObject({ series: LATER.length * DEMO_SYMBOLS.length, context: PERPETUALS.length * DEMO_SYMBOLS.length * 2 * 1440 });
    // After each series and each symbol (the server collects its garbage there).
    expect(steps).toBe(DEMO_SYMBOLS.length * (LATER.length + 1));
    for (const sym of DEMO_SYMBOLS) {
      // 60 days of 8-hourly settlements (and 6 a day for Bybit's 4-hourly symbol).
      const bybitHours = sym.symbol === DEMO_BYBIT_4H_SYMBOL ? 4 : 8;
      const usdm = await funding('binance-perp', sym.symbol, 60);
      expect(usdm.length).toBe(180);
      expect(settledEvery(usdm, 8)).toBe(true);
      const bybit = await funding('bybit-perp', sym.symbol, 60);
      expect(bybit.length).toBe((60 * 24) / bybitHours);
      expect(settledEvery(bybit, bybitHours)).toBe(true);
      // Draws of their own: Bybit's rates are not Binance's.
      expect(bybit.filter((r) => Date.parse(r.time) % (8 * HOUR) === 0).map((r) => r.rate)).not.toEqual(usdm.map((r) => r.rate));
    }
    for (const exchange of PERPETUALS) {
      const id = await idOf(exchange);
      expect(await count(`SELECT count(*) AS n FROM derivatives WHERE series_id = $1 AND timeframe = '1m'`, [id])).toBe(2 * 1440);
      expect(await count(`SELECT count(*) AS n FROM derivatives WHERE series_id = $1 AND timeframe = '1h'`, [id])).toBeGreaterThanOrEqual(47);
    }
    for (const exchange of LATER) {
      const markets = await s.markets.list({ exchange });
      expect(markets.map((m) => m.symbol).sort()).toEqual(DEMO_SYMBOLS.map((d) => d.symbol).sort());
      for (const m of markets) {
        expect(m).toMatchObject({ fundingIntervalHours: exchange === 'bybit-perp' && m.symbol === DEMO_BYBIT_4H_SYMBOL ? 4 : 8 });
        expect(m.coverage.map((c) => c.timeframe)).toEqual(['1m', '5m', '15m', '1h', '4h', '1d', 'funding', 'derivatives']);
      }
    }
    // Bybit's candles are its own model's, not Binance's.
    const last = Math.floor(seeded / MIN) * MIN - MIN;
    const closeAt = async (exchange: string) => {
      const id = await idOf(exchange);
      const [row] = await s.store.db.query<{ close: string }>(`SELECT close::text AS close FROM candles WHERE series_id = $1 AND timeframe = '1m' AND time = $2`, [id, new Date(last)]);
      return Number(row.close);
    };
    const spotDay = demoSpotDay(DEMO_SYMBOLS[0], Math.floor(last / DAY) * DAY);
    const minute = (last % DAY) / MIN;
    expect(await closeAt('bybit-perp')).toBe(demoPerpOf(DEMO_SYMBOLS[0], spotDay, 'bybit-perp')[minute].close);
    expect(await closeAt('binance-perp')).toBe(demoPerpOf(DEMO_SYMBOLS[0], spotDay, 'binance-perp')[minute].close);
    expect(await closeAt('bybit-perp')).not.toBe(await closeAt('binance-perp'));
    expect(await s.seeder.seedLater(seeded)).toBeNull();
  }, 240_000);

  it('when the demo feed ticks later, then the later exchanges get their candles and next settlements (the 4-hourly symbol two) and every perpetual its context minutes', async () => {
    const usdm = await idOf('binance-perp');
    const bybit = await idOf('bybit-perp');
    const bybit4h = await idOf('bybit-perp', DEMO_BYBIT_4H_SYMBOL);
    const before = (await s.store.funding.latestTime(usdm))!;
    expect(await s.store.funding.latestTime(bybit)).toBe(before);
    expect(await s.store.funding.latestTime(bybit4h)).toBe(before);
    clock = before + 8 * HOUR + 5 * MIN;
    await s.demoFeed.tick();
    expect(await s.store.funding.latestTime(usdm)).toBe(before + 8 * HOUR);
    expect(await s.store.funding.latestTime(bybit)).toBe(before + 8 * HOUR);
    const after = (id: number) => s.store.funding.pages([id], new Date(before), new Date(clock), 100).then((m) => m.get(id)!);
    const eight = await after(bybit);
    expect(eight.map((r) => Date.parse(r.time))).toEqual([before, before + 8 * HOUR]);
    expect(settledEvery(eight, 8)).toBe(true);
    const four = await after(bybit4h);
    expect(four.map((r) => Date.parse(r.time))).toEqual([before, before + 4 * HOUR, before + 8 * HOUR]);
    expect(settledEvery(four, 4)).toBe(true);
    const last = Math.floor(clock / MIN) * MIN - MIN;
    for (const exchange of LATER) expect((await s.store.candles.openSpan(await idOf(exchange), '1m', new Date(clock))).last).toBe(last);
    for (const exchange of PERPETUALS) expect(await s.store.derivatives.latestTime(await idOf(exchange))).toBe(last);
    // Each context's predicted rate is its next settlement's: 4 hours ahead at most on the 4-hourly symbol.
    const eth = DEMO_SYMBOLS.find((d) => d.symbol === DEMO_BYBIT_4H_SYMBOL)!;
    for (const [id, sym, venue, hours] of [
      [usdm, DEMO_SYMBOLS[0], 'binance-perp', 8],
      [bybit, DEMO_SYMBOLS[0], 'bybit-perp', 8],
      [bybit4h, eth, 'bybit-perp', 4],
    ] as const) {
      const [row] = await s.store.db.query<{ oi: string; rate: string }>(
        `SELECT open_interest::text AS oi, predicted_funding_rate::text AS rate FROM derivatives WHERE series_id = $1 AND timeframe = '1m' AND time = $2`,
        [id, new Date(last)],
      );
      expect(Number(row.oi)).toBeGreaterThan(0);
      const next = Math.floor(last / (hours * HOUR)) * hours * HOUR + hours * HOUR;
      expect(Number(row.rate)).toBe(demoSettlementRate(sym, venue, next));
    }
  }, 120_000);
});
