/**
 * Following the venues through faults of the service's own dependencies and of the venue's
 * publishing: the database lost for a while during follow (a TCP proxy in front of the
 * machine's PostgreSQL is cut, never the server itself), and funding published late. The
 * simulator and the service share a clock shifted so that the minute (or hour) closes a few
 * seconds into the test.
 */
import pg from 'pg';
import { liveSettings, openServices, type Services } from '../../src/composition';
import { FUNDING_INTERVAL_MS, lastClosedOpen } from '../../src/domain/timeframe';
import { testConfig } from '../helpers/config';
import { describeWith } from '../helpers/requirements';
import { freshPostgres, type FreshDatabase } from '../helpers/databases';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { pollUntil, shiftableClock, untilClockAt } from '../helpers/wait';
import { VenueSimulator } from '../../tools/venue-sim';

const MIN = 60_000;

describeWith('DATABASE_URL', 'following the venues while the database goes away and comes back', (serverUrl) => {
  const shifted = shiftableClock();
  const clock = shifted.now;
  let sim: VenueSimulator;
  let db: FreshDatabase;
  let proxy: TcpProxy;
  let s: Services;
  let sql: pg.Client;
  let run: { stop(): Promise<void> };

  beforeAll(async () => {
    sim = await VenueSimulator.start({ now: clock, pushIntervalMs: 250 });
    db = await freshPostgres(serverUrl);
    const u = new URL(db.url);
    proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
    const config = testConfig({
      ...sim.env,
      DATABASE_URL: proxy.urlFor(db.url),
      INGEST_SYMBOLS: 'BTC-USDT',
      INGEST_SINCE: '20m',
      DATABASE_CONNECT_TIMEOUT: '1s',
    });
    s = await openServices(config, { clock });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    // 20 s before a minute closes, however long the database took: the backfill is done before it.
    shifted.shift(MIN, 40_000);
    run = s.ingest.run(['BTC-USDT'], liveSettings(config, clock()));
  });
  afterAll(async () => {
    await run?.stop();
    await s?.close();
    await sql?.end();
    await proxy?.close();
    await db?.drop();
    await sim?.close();
  });

  /** Newest stored 1m open time of each series, and whether each series is one row per minute from its first. */
  const stored = async () => {
    const r = await sql.query<{ exchange: string; n: string; lo: string; hi: string }>(
      `SELECT s.exchange, count(*) AS n, (extract(epoch FROM min(c.time)) * 1000)::bigint AS lo, (extract(epoch FROM max(c.time)) * 1000)::bigint AS hi
         FROM candles c JOIN series s ON s.id = c.series_id WHERE c.timeframe = '1m' GROUP BY s.exchange ORDER BY s.exchange`,
    );
    return r.rows.map((x) => ({ exchange: x.exchange, newest: Number(x.hi), complete: Number(x.n) === (Number(x.hi) - Number(x.lo)) / MIN + 1 }));
  };
  const caughtUp = (minute: number) => (rows: Array<{ newest: number }>) => rows.length === 2 && rows.every((r) => r.newest >= minute);

  it('when the database is unreachable across a minute close, then the candle missed meanwhile is stored once it is back, with no hole', async () => {
    await pollUntil(stored, caughtUp(lastClosedOpen(clock(), '1m')), { withinMs: 30_000 });
    // Cut from 5 s before the close to 10 s after it: the socket delivers the closed candle
    // while no write can succeed.
    shifted.advanceTo(MIN, 55_000);
    const closing = lastClosedOpen(clock(), '1m') + MIN;
    await proxy.cut();
    await untilClockAt(clock, MIN, 10_000);
    expect(clock()).toBeGreaterThan(closing + MIN);
    await proxy.restore();

    const after = await pollUntil(stored, caughtUp(closing), { withinMs: 45_000, everyMs: 250 });
    expect(after).toEqual([
      { exchange: 'perp', newest: expect.any(Number), complete: true },
      { exchange: 'spot', newest: expect.any(Number), complete: true },
    ]);
    expect(Math.min(...after.map((r) => r.newest))).toBeGreaterThanOrEqual(closing);
    // The venues' values, not a placeholder: the closed minute's spot close is the venue's.
    const { rows } = await sql.query<{ close: string }>(
      `SELECT c.close::text AS close FROM candles c JOIN series s ON s.id = c.series_id WHERE s.exchange = 'spot' AND c.timeframe = '1m' AND c.time = $1`,
      [new Date(closing).toISOString()],
    );
    expect(Number(rows[0].close)).toBeCloseTo(Number(sim.candle('binance', 'BTCUSDT', '1m', closing)!.close), 6);
  }, 120_000);
});

describe('funding published late by the venue', () => {
  const shifted = shiftableClock();
  const clock = shifted.now;
  let sim: VenueSimulator;
  let s: Services;
  let run: { stop(): Promise<void> };

  let settling: number;

  beforeAll(async () => {
    sim = await VenueSimulator.start({ now: clock, pushIntervalMs: 500 });
    sim.setFundingDelay(6_000);
    const config = testConfig({ ...sim.env, INGEST_SYMBOLS: 'BTC-USDT', INGEST_SINCE: '3h', INGEST_FUNDING_DELAY: '1s' });
    s = await openServices(config, { clock, dataDir: 'memory' });
    // The hour settles 12 s after the service follows, however long the database took to open.
    shifted.shift(FUNDING_INTERVAL_MS, FUNDING_INTERVAL_MS - 12_000);
    settling = clock() - (clock() % FUNDING_INTERVAL_MS) + FUNDING_INTERVAL_MS;
    // Asked again every 2 s rather than every 30: the retry is the behaviour, not its period.
    run = s.ingest.run(['BTC-USDT'], { ...liveSettings(config, clock()), fundingRetryMs: 2_000 });
  });
  afterAll(async () => {
    await run?.stop();
    await s?.close();
    await sim?.close();
  });

  const latestFunding = async () => {
    const id = await s.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' });
    return id === undefined ? null : s.store.funding.latestTime(id);
  };
  const fundingAsks = (after: number) => sim.requests.filter((r) => r.kind === 'fundingHistory' && r.at >= after && r.status === 200).length;

  it('when the hour settles but its rate is not published yet, then the service asks again until it is, and stores it', async () => {
    // The backfill stores the hours published so far.
    const before = await pollUntil(latestFunding, (t) => t === settling - FUNDING_INTERVAL_MS, { withinMs: 10_000 });
    expect(before).toBe(settling - FUNDING_INTERVAL_MS);
    // Asked a second after settlement: not published (6 s late), so not stored.
    await pollUntil(async () => fundingAsks(settling), (n) => n >= 1, { withinMs: 20_000 });
    expect(sim.fundingRate('BTC', settling)).toBeNull();
    expect(await latestFunding()).toBe(settling - FUNDING_INTERVAL_MS);
    // Asked again later, once published: stored with the venue's rate.
    const after = await pollUntil(latestFunding, (t) => t === settling, { withinMs: 60_000, everyMs: 500 });
    expect(after).toBe(settling);
    expect(fundingAsks(settling)).toBeGreaterThanOrEqual(2);
    const id = (await s.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!;
    const rows = (await s.store.funding.pages([id], new Date(settling), new Date(settling), 10)).get(id) ?? [];
    expect(rows.map((r) => Number(r.rate))).toEqual([Number(sim.fundingRate('BTC', settling))]);
  }, 90_000);
});

describe('a backfill the venue refuses', () => {
  const clock = shiftableClock().now;
  let sim: VenueSimulator;
  let s: Services;
  let run: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    sim = await VenueSimulator.start({ now: clock, pushIntervalMs: 500 });
  });
  afterAll(async () => {
    await run?.stop();
    await s?.close();
    await sim?.close();
  });

  it('when the venue refuses a request of the backfill, then the catch-up is the backfill again (every minute since INGEST_SINCE stored), not only the last few candles', async () => {
    const config = testConfig({ ...sim.env, INGEST_SYMBOLS: 'BTC-USDT', INGEST_SINCE: '90m', INGEST_RECONCILE_CANDLES: '5' });
    s = await openServices(config, { clock, dataDir: 'memory' });
    const since = lastClosedOpen(clock(), '1m') - 89 * MIN;
    sim.failNext('binance', 1, 400);
    run = s.ingest.run(['BTC-USDT'], liveSettings(config, clock()));
    const first = async () => {
      const id = await s.store.series.idOf({ exchange: 'spot', symbol: 'BTC-USDT' });
      return id === undefined ? null : (await s.store.candles.openSpan(id, '1m', new Date(clock()))).first;
    };
    const earliest = await pollUntil(first, (t) => t !== null && t <= since, { withinMs: 20_000, everyMs: 200 });
    expect(sim.requests.find((r) => r.venue === 'binance' && r.status === 400)?.kind).toBe('klines');
    expect(earliest).toBeLessThanOrEqual(since);
  }, 30_000);
});
