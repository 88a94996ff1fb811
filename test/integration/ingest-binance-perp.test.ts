/**
 * Binance USD-M (`binance-perp`) through `mds sync` against the venue simulator, on each
 * database: candles (the still-open one never stored), 8-hourly funding stamped ms after the
 * hour stored at its hour with interval 8, an interval change to 4 hours, a symbol the venue does
 * not list skipped there only, a 429 with Retry-After obeyed, and the funding read normalized
 * against `spot` with intervals, over REST.
 */
import { openServices, type Services } from '../../src/composition';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';
import { VenueSimulator } from '../../tools/venue-sim';

const HOUR = 3_600_000;
const MIN = 60_000;

describe.each(databaseCases())('Binance USD-M through mds sync on $name', ({ create }) => {
  let sim: VenueSimulator;
  let s: Services;
  let drop: (() => Promise<void>) | undefined;
  const now = Date.now();
  const since = Math.floor(now / (8 * HOUR)) * 8 * HOUR - 48 * HOUR;

  beforeAll(async () => {
    sim = await VenueSimulator.start({ binancePerp: ['BTCUSDT', 'ETHUSDT'] });
    const db = await create();
    drop = db?.drop;
    s = await openServices(testConfig({ ...sim.env, EXCHANGES: 'perp,spot,binance-perp', ...(db ? { DATABASE_URL: db.url } : {}) }), db ? {} : { dataDir: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
    await drop?.();
    await sim?.close();
  });

  const seriesOf = async (symbol: string) => (await s.store.series.idOf({ exchange: 'binance-perp', symbol }))!;

  it('when BTC-USDT and an unlisted symbol are synced, then BTC-USDT has its closed candles and 8-hourly funding, and the other is skipped there', async () => {
    const summary = await s.ingest.sync({ symbols: ['BTC-USDT', 'XRP-USDT'], exchanges: ['binance-perp'], sinceMs: now - 3 * 60 * MIN });
    expect(summary.series.map((x) => [x.exchange, x.symbol, x.venue, x.instrument])).toEqual([['binance-perp', 'BTC-USDT', 'binance-perp', 'BTCUSDT']]);
    expect(await s.store.series.idOf({ exchange: 'binance-perp', symbol: 'XRP-USDT' })).toBeUndefined();
    const id = await seriesOf('BTC-USDT');
    const m1 = await s.store.db.query<{ t: string; close: string }>(
      `SELECT (extract(epoch FROM time) * 1000)::int8::text AS t, close::text AS close FROM candles WHERE series_id = $1 AND timeframe = '1m' AND time >= $2 ORDER BY time`,
      [id, new Date(now - 3 * 60 * MIN)],
    );
    expect(m1.length).toBeGreaterThan(170);
    // Never the minute still open (the venue's klines include it).
    expect(Number(m1[m1.length - 1].t) + MIN).toBeLessThanOrEqual(Date.now());
    const expected = sim.candle('binance-perp', 'BTCUSDT', '1m', Number(m1[5].t))!;
    expect(Number(m1[5].close)).toBeCloseTo(Number(expected.close), 6);
  });

  it('when funding is synced, then each settlement (ms after its hour) is stored at the hour with interval 8, and an interval change to 4 hours shows', async () => {
    // From the last two settlements on, ETH settles every 4 hours.
    const change = Math.floor(now / (8 * HOUR)) * 8 * HOUR - 8 * HOUR;
    sim.setBinancePerpInterval('ETH', 4, change);
    await s.ingest.sync({ symbols: ['ETH-USDT'], exchanges: ['binance-perp'], sinceMs: since });
    const id = await seriesOf('ETH-USDT');
    const rows = (await s.store.funding.pages([id], new Date(since - HOUR), new Date(now), 1000)).get(id) ?? [];
    const hours = rows.map((r) => (Date.parse(r.time) - since) / HOUR);
    const first = sim.binancePerpFunding('ETH', since)!;
    expect(first.fundingTime - since).toBeLessThan(14);
    expect(rows[0]).toMatchObject({ rate: Number(first.fundingRate).toFixed(8) });
    expect(hours.filter((h) => since + h * HOUR < change)).toEqual([0, 8, 16, 24, 32].filter((h) => since + h * HOUR < change));
    // The first row takes the venue's interval when it was asked (fundingInfo, cached for minutes): 4 or 8 here.
    expect(rows.slice(1).filter((r) => Date.parse(r.time) <= change).every((r) => r.intervalHours === '8')).toBe(true);
    const after = rows.filter((r) => Date.parse(r.time) > change);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after.every((r) => r.intervalHours === '4' && r.rateHourly === (Number(r.rate) / 4).toFixed(8))).toBe(true);
  });

  it('when the venue answers 429 with Retry-After, then the sync waits and completes', async () => {
    sim.failNext('binance-perp', 1, 429, 1);
    const summary = await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['binance-perp'], sinceMs: now - 10 * MIN });
    expect(summary.series).toHaveLength(1);
    expect(sim.requests.some((r) => r.venue === 'binance-perp' && r.status === 429)).toBe(true);
  });

  it('when /v1/markets lists binance-perp, then its current funding interval is there', async () => {
    const markets = await s.markets.list({ exchange: 'binance-perp' });
    expect(markets.find((m) => m.symbol === 'ETH-USDT')).toMatchObject({ exchange: 'binance-perp', fundingIntervalHours: 4 });
  });
});
