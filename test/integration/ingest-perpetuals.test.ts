/**
 * The perpetual venues that settle at intervals (Binance USD-M `binance-perp`, Bybit
 * `bybit-perp`) through `mds sync` against the venue simulator, on each database: candles (the
 * still-open one never stored), 8-hourly funding stored at its hour with interval 8 (USD-M
 * stamps ms after it), an interval change to 4 hours, a symbol the venue does not list skipped
 * there only, a 429 with Retry-After obeyed, and /v1/markets' current interval.
 */
import { openServices, type Services } from '../../src/composition';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';
import { PERP_VENUES } from '../helpers/perp-venues';
import { VenueSimulator } from '../../tools/venue-sim';

const HOUR = 3_600_000;
const MIN = 60_000;

describe.each(databaseCases())('perpetual venues through mds sync on $name', ({ create }) => {
  let sim: VenueSimulator;
  let s: Services;
  let drop: (() => Promise<void>) | undefined;
  const now = Date.now();
  const since = Math.floor(now / (8 * HOUR)) * 8 * HOUR - 48 * HOUR;

  beforeAll(async () => {
    sim = await VenueSimulator.start();
    const db = await create();
    drop = db?.drop;
    s = await openServices(testConfig({ ...sim.env, EXCHANGES: 'perp,spot,binance-perp,bybit-perp', ...(db ? { DATABASE_URL: db.url } : {}) }), db ? {} : { dataDir: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
    await drop?.();
    await sim?.close();
  });

  const seriesOf = async (exchange: string, symbol: string) => (await s.store.series.idOf({ exchange, symbol }))!;

  it.each(PERP_VENUES)('when BTC-USDT and an unlisted symbol are synced on $exchange, then BTC-USDT has its closed candles, and the other is skipped there', async (p) => {
    const summary = await s.ingest.sync({ symbols: ['BTC-USDT', 'XRP-USDT'], exchanges: [p.exchange], sinceMs: now - 3 * 60 * MIN });
    expect(summary.series.map((x) => [x.exchange, x.symbol, x.venue, x.instrument])).toEqual([[p.exchange, 'BTC-USDT', p.venue, 'BTCUSDT']]);
    expect(await s.store.series.idOf({ exchange: p.exchange, symbol: 'XRP-USDT' })).toBeUndefined();
    const id = await seriesOf(p.exchange, 'BTC-USDT');
    const m1 = await s.store.db.query<{ t: string; close: string }>(
      `SELECT (extract(epoch FROM time) * 1000)::int8::text AS t, close::text AS close FROM candles WHERE series_id = $1 AND timeframe = '1m' AND time >= $2 ORDER BY time`,
      [id, new Date(now - 3 * 60 * MIN)],
    );
    expect(m1.length).toBeGreaterThan(170);
    // Never the minute still open (the venue's klines include it).
    expect(Number(m1[m1.length - 1].t) + MIN).toBeLessThanOrEqual(Date.now());
    const expected = sim.candle(p.venue, 'BTCUSDT', p.minute, Number(m1[5].t))!;
    expect(Number(m1[5].close)).toBeCloseTo(Number(expected.close), 6);
  });

  it.each(PERP_VENUES)('when $exchange funding is synced, then each settlement is stored at its hour with interval 8, and an interval change to 4 hours shows', async (p) => {
    // From the last two settlements on, ETH settles every 4 hours.
    const change = Math.floor(now / (8 * HOUR)) * 8 * HOUR - 8 * HOUR;
    p.setInterval(sim, 'ETH', 4, change);
    await s.ingest.sync({ symbols: ['ETH-USDT'], exchanges: [p.exchange], sinceMs: since });
    const id = await seriesOf(p.exchange, 'ETH-USDT');
    const rows = (await s.store.funding.pages([id], new Date(since - HOUR), new Date(now), 1000)).get(id) ?? [];
    const hours = rows.map((r) => (Date.parse(r.time) - since) / HOUR);
    const first = p.funding(sim, 'ETH', since)!;
    expect(first.time - since).toBeLessThan(14);
    expect(rows[0]).toMatchObject({ rate: Number(first.rate).toFixed(8) });
    expect(hours.filter((h) => since + h * HOUR < change)).toEqual([0, 8, 16, 24, 32].filter((h) => since + h * HOUR < change));
    // The first row takes the venue's interval when it was asked (fundingInfo, cached for minutes): 4 or 8 here.
    expect(rows.slice(1).filter((r) => Date.parse(r.time) <= change).every((r) => r.intervalHours === '8')).toBe(true);
    const after = rows.filter((r) => Date.parse(r.time) > change);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after.every((r) => r.intervalHours === '4' && r.rateHourly === (Number(r.rate) / 4).toFixed(8))).toBe(true);
  });

  it.each(PERP_VENUES)('when $exchange answers 429 with Retry-After, then the sync waits and completes', async (p) => {
    sim.failNext(p.venue, 1, 429, 1);
    const summary = await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: [p.exchange], sinceMs: now - 10 * MIN });
    expect(summary.series).toHaveLength(1);
    expect(sim.requests.some((r) => r.venue === p.venue && r.status === 429)).toBe(true);
  });

  it.each(PERP_VENUES)('when /v1/markets lists $exchange, then its current funding interval is there', async (p) => {
    const markets = await s.markets.list({ exchange: p.exchange });
    expect(markets.find((m) => m.symbol === 'ETH-USDT')).toMatchObject({ exchange: p.exchange, fundingIntervalHours: 4 });
  });
});
