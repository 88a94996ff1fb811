/**
 * Read replicas (DATABASE_REPLICA_URLS) against a real streaming standby on spare ports
 * (test/helpers/postgres-pair.ts). Where a statement ran is told by the answer: with the standby's
 * replay paused, a row written on the primary is there only, so a read that misses it ran on the
 * replica. Two servers share the pair: one with REPLICA_MAX_LAG=1h (a paused replica stays recent,
 * so only routing and read-your-writes decide), one with 2s (the lag bound and a killed replica).
 * A page's write watermark is read on the server its rows come from: a replica's lags with them.
 */
import type { MarketEvent } from '../../src/services/events/market-events';
import type { Json } from '../helpers/json';
import { privatePostgresPair, type PostgresPair } from '../helpers/postgres-pair';
import { startTestServer, type TestServer } from '../helpers/server';
import { describeWith } from '../helpers/requirements';
import { pause, pollUntil } from '../helpers/wait';
import { connectWs, eventually, type WsSession } from '../helpers/ws-client';

const T0 = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;
const MIN = 60_000;
const UNLIMITED = JSON.stringify({ pro: { minuteRequests: 1_000_000, dailyRequests: null } });

describeWith('POSTGRES_BIN', 'read replicas on a streaming standby', (bin) => {
  let pair: PostgresPair;
  /** REPLICA_MAX_LAG=1h and 2s. */
  let patient: TestServer;
  let strict: TestServer;
  const keys = new Map<TestServer, string>();
  const sessions: WsSession[] = [];

  const replicaName = () => `127.0.0.1:${pair.standby.port}/postgres`;

  async function startOn(maxLag: string): Promise<TestServer> {
    const srv = await startTestServer({
      database: pair.primary.url,
      env: { DATABASE_REPLICA_URLS: pair.standby.url, REPLICA_MAX_LAG: maxLag, DATABASE_CONNECT_TIMEOUT: '1s', TIER_LIMITS: UNLIMITED, LOG_LEVEL: 'warn' },
    });
    keys.set(srv, await srv.key('pro'));
    // Its first quality run (at start, over no series) is over before the tests write any: a run
    // still going when a series appears would score it, and the tests expect no record.
    await pollUntil(async () => (await srv.rest('/metrics')).text(), (m) => /mds_job_runs_total\{job="quality",outcome="(ok|skipped)"\} [1-9]/.test(m), { withinMs: 20_000 });
    return srv;
  }

  beforeAll(async () => {
    pair = await privatePostgresPair(bin);
    patient = await startOn('1h');
    strict = await startOn('2s');
  }, 60_000);

  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await patient?.stop();
    await strict?.stop();
    await pair?.destroy();
  });

  afterEach(async () => {
    // A failed test must not leave replay paused for the next one.
    await pair.standby.query('SELECT pg_wal_replay_resume()').catch(() => undefined);
  });

  async function pauseReplay(): Promise<void> {
    await pair.standby.query('SELECT pg_wal_replay_pause()');
    const paused = await pollUntil(async () => (await pair.standby.query<{ s: string }>('SELECT pg_get_wal_replay_pause_state() AS s'))[0].s, (s) => s === 'paused', { withinMs: 5_000, everyMs: 20 });
    expect(paused).toBe('paused');
  }

  async function health(srv: TestServer): Promise<{ status: number; body: Json }> {
    const res = await srv.rest('/health');
    return { status: res.status, body: (await res.json()) as Json };
  }

  /** Until the server's replica entry says `state` (returns the /health answer). */
  async function replicaState(srv: TestServer, state: string, withinMs = 10_000) {
    const h = await pollUntil(() => health(srv), (h) => h.body.checks.replicas?.replicas?.[0]?.state === state, { withinMs, everyMs: 50 });
    expect({ state: h.body.checks.replicas?.replicas?.[0]?.state }).toEqual({ state });
    return h;
  }

  /** Statements the server ran on the replica so far (its /metrics). */
  async function replicaReads(srv: TestServer): Promise<number> {
    const text = await (await srv.rest('/metrics')).text();
    const m = new RegExp(`^mds_replica_reads_total\\{target="${replicaName().replace(/[./]/g, '\\$&')}"\\} (\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  }

  async function seriesId(exchange: string, symbol: string): Promise<number> {
    const [{ id }] = await pair.primary.query<{ id: number }>(
      `INSERT INTO series (exchange, symbol) VALUES ($1, $2) ON CONFLICT (exchange, symbol) DO UPDATE SET symbol = EXCLUDED.symbol RETURNING id`,
      [exchange, symbol],
    );
    return id;
  }

  /** One hour of a series on the primary: its 1h candle, funding rate and feature row. */
  async function writeHour(id: number, t: number, close: number): Promise<void> {
    // Candles and features are partitioned by time: the service's writers create the partitions they write in.
    await pair.primary.query(`SELECT mds_ensure_partitions('1h', $1, $1)`, [new Date(t)]);
    await pair.primary.query(`INSERT INTO candles (series_id, timeframe, time, open, high, low, close, volume) VALUES ($1, '1h', $2, $3::numeric, $3::numeric + 1, $3::numeric - 1, $3::numeric, 10)`, [id, new Date(t), close]);
    await pair.primary.query(`INSERT INTO funding_rates (series_id, time, rate) VALUES ($1, $2, 0.0001)`, [id, new Date(t)]);
    await pair.primary.query(`INSERT INTO features (series_id, timeframe, time, rsi_14) VALUES ($1, '1h', $2, 50.5)`, [id, new Date(t)]);
  }

  /** What each data read of the server answers about `symbol` on the perpetual venue. */
  async function view(srv: TestServer, symbol: string) {
    const key = keys.get(srv)!;
    const q = `symbol=${symbol}&exchange=perp&start=${T0}`;
    const [ohlcv, funding, features, multi, markets, quality, gql] = await Promise.all([
      srv.getJson(`/v1/ohlcv?${q}&timeframe=1h`, key),
      srv.getJson(`/v1/funding?${q}`, key),
      srv.getJson(`/v1/features?${q}&timeframe=1h&features=rsi_14`, key),
      srv.getJson(`/v1/multi-asset?symbols=${symbol}&exchange=perp&timeframe=1h&field=close&start=${T0}`, key),
      srv.getJson('/v1/markets?exchange=perp', key),
      srv.getJson(`/v1/quality?symbol=${symbol}&exchange=perp`, key),
      srv.gql(`{ market(exchange: "perp", symbol: "${symbol}") { candles(timeframe: "1h", start: "${T0}") { count } coverage { timeframe last } } }`, undefined, key).then(async (r) => (await r.json()) as Json),
    ]);
    for (const r of [ohlcv, funding, features, multi, markets]) expect(r.status).toBe(200);
    return {
      ohlcv: ohlcv.body.count,
      funding: funding.body.count,
      features: features.body.count,
      multiAsset: multi.body.count,
      marketsLast: markets.body.markets?.find((m: Json) => m.symbol === symbol)?.coverage?.find((c: Json) => c.timeframe === '1h')?.last ?? null,
      quality: quality.status,
      graphqlCandles: gql.data?.market?.candles?.count,
      graphqlLast: gql.data?.market?.coverage?.find((c: Json) => c.timeframe === '1h')?.last ?? null,
    };
  }

  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + '+00:00';

  it('when replay is paused and the primary gains a row, then every data read answers from the replica, while key lookups and writes use the primary', async () => {
    const id = await seriesId('perp', 'BTC-USDT');
    await writeHour(id, T0, 100);
    await pair.caughtUp();
    await replicaState(patient, 'serving');
    const before = await view(patient, 'BTC-USDT');
    expect(before).toEqual({ ohlcv: 1, funding: 1, features: 1, multiAsset: 1, marketsLast: iso(T0), quality: 404, graphqlCandles: 1, graphqlLast: iso(T0) });

    await pauseReplay();
    await writeHour(id, T0 + HOUR, 101);
    await pair.primary.query(
      `INSERT INTO quality (series_id, timeframe, computed_at, dqs, gap_rate_score, anomaly_score, consistency_score, freshness_score, expected_candles, present_candles, missing_intervals)
       VALUES ($1, '1h', now(), 0.9, 1, 1, 1, 0.5, 2, 2, '[]')`,
      [id],
    );
    const readsBefore = await replicaReads(patient);
    // The replica's answers (the primary has a second hour and a quality record).
    expect(await view(patient, 'BTC-USDT')).toEqual(before);
    expect(await replicaReads(patient)).toBeGreaterThan(readsBefore);

    // A key made now exists on the primary only: it is accepted at once (key lookups read the
    // primary), and so is a key-management write.
    const fresh = await patient.key('pro');
    expect((await patient.rest(`/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${T0}`, { key: fresh })).status).toBe(200);
    const listed = await patient.getJson('/v1/auth/keys', fresh);
    expect({ status: listed.status, keys: listed.body.keys?.length }).toEqual({ status: 200, keys: 1 });

    await pair.standby.query('SELECT pg_wal_replay_resume()');
    await pair.caughtUp();
    const after = await pollUntil(() => view(patient, 'BTC-USDT'), (v) => v.ohlcv === 2, { withinMs: 5_000 });
    expect(after).toEqual({ ohlcv: 2, funding: 2, features: 2, multiAsset: 2, marketsLast: iso(T0 + HOUR), quality: 200, graphqlCandles: 2, graphqlLast: iso(T0 + HOUR) });
  }, 30_000);

  it('when the replica lags a repair, then its watermark lags with its data: a revalidation answers for what it holds, and the tag changes once it replays the repair', async () => {
    const id = await seriesId('perp', 'AVAX-USDT');
    await writeHour(id, T0, 30);
    await pair.caughtUp();
    await replicaState(patient, 'serving');
    const key = keys.get(patient)!;
    const path = `/v1/ohlcv?symbol=AVAX-USDT&exchange=perp&timeframe=1h&start=${T0}&end=${T0 + 2 * HOUR}`;
    const tag = (await patient.rest(path, { key })).headers.get('etag')!;
    expect((await patient.rest(path, { key, headers: { 'If-None-Match': tag } })).status).toBe(304);

    await pauseReplay();
    // Through the other server's writer: this one hears no event of it, so its reads stay on the replica.
    await strict.services.writer.candles({ id, symbol: 'AVAX-USDT' }, '1h', [{ time: T0, open: '31', high: '32', low: '29', close: '31.5', volume: '5' }]);
    const readsBefore = await replicaReads(patient);
    const lagging = await patient.rest(path, { key, headers: { 'If-None-Match': tag } });
    expect(lagging.status).toBe(304);
    expect(await replicaReads(patient)).toBeGreaterThan(readsBefore);

    await pair.standby.query('SELECT pg_wal_replay_resume()');
    await pair.caughtUp();
    const after = await patient.rest(path, { key, headers: { 'If-None-Match': tag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect(((await after.json()) as Json).data[0].close).toBe('31.500000');
  }, 30_000);

  it('when the replica falls further behind than REPLICA_MAX_LAG, then reads go to the primary within that bound, /health says so (200), and it rejoins once it catches up', async () => {
    const id = await seriesId('perp', 'ETH-USDT');
    await writeHour(id, T0, 200);
    await pair.caughtUp();
    await replicaState(strict, 'serving');
    expect((await view(strict, 'ETH-USDT')).ohlcv).toBe(1);

    await pauseReplay();
    await writeHour(id, T0 + HOUR, 201);
    const written = Date.now();
    // Stale answers are allowed within the bound; fresh ones must come within it (2 s, plus the
    // second between two polls and slack).
    const fresh = await pollUntil(() => view(strict, 'ETH-USDT'), (v) => v.ohlcv === 2, { withinMs: 6_000, everyMs: 50 });
    const tookMs = Date.now() - written;
    expect({ ohlcv: fresh.ohlcv, funding: fresh.funding, features: fresh.features, withinBound: tookMs < 4_000 }).toEqual({ ohlcv: 2, funding: 2, features: 2, withinBound: true });

    const h = await replicaState(strict, 'lagging');
    expect(h.status).toBe(200);
    expect(h.body.status).toBe('ok');
    expect(h.body.checks.replicas).toMatchObject({ status: 'degraded', error: `${replicaName()} lagging`, replicas: [{ name: replicaName(), state: 'lagging' }] });
    expect(h.body.checks.replicas.replicas[0].lag_seconds).toBeGreaterThanOrEqual(1);
    const metrics = await (await strict.rest('/metrics')).text();
    expect(metrics).toContain(`mds_replica_available{replica="${replicaName()}"} 0`);
    const readsWhileLagging = await replicaReads(strict);
    await view(strict, 'ETH-USDT');
    expect(await replicaReads(strict)).toBe(readsWhileLagging);

    await pair.standby.query('SELECT pg_wal_replay_resume()');
    await replicaState(strict, 'serving');
    expect(await (await strict.rest('/metrics')).text()).toContain(`mds_replica_available{replica="${replicaName()}"} 1`);
    const readsBack = await replicaReads(strict);
    expect((await view(strict, 'ETH-USDT')).ohlcv).toBe(2);
    expect(await replicaReads(strict)).toBeGreaterThan(readsBack);
  }, 30_000);

  it('when the replica is killed under traffic, then no request fails, /health reports it unreachable (200), and it rejoins after a restart', async () => {
    const id = await seriesId('perp', 'SOL-USDT');
    await writeHour(id, T0, 300);
    await pair.caughtUp();
    await replicaState(strict, 'serving');
    const failures: string[] = [];
    let served = 0;
    let stop = false;
    // GraphQL's per-field limit (600 `candles` calls a minute per key): a key per client, paced.
    const clientKeys = await Promise.all([0, 1, 2, 3].map(() => strict.key('pro')));
    const client = async (n: number) => {
      const key = clientKeys[n];
      for (let i = 0; !stop; i++, await pause(25)) {
        const res =
          (n + i) % 2 === 0
            ? await strict.rest(`/v1/ohlcv?symbol=SOL-USDT&exchange=perp&timeframe=1h&start=${T0}`, { key })
            : await strict.gql(`{ market(exchange: "perp", symbol: "SOL-USDT") { candles(timeframe: "1h", start: "${T0}") { count } } }`, undefined, key);
        const body = (await res.json()) as Json;
        const count = body.count ?? body.data?.market?.candles?.count;
        if (res.status !== 200 || count !== 1) failures.push(`${res.status} ${JSON.stringify(body)}`);
        served++;
      }
    };
    const traffic = Promise.all([0, 1, 2, 3].map(client));
    try {
      await pause(300);
      const readsBeforeKill = await replicaReads(strict);
      expect(readsBeforeKill).toBeGreaterThan(0);
      await pair.standby.kill();
      const down = await replicaState(strict, 'unreachable');
      expect(down.status).toBe(200);
      expect(down.body.checks.database.status).toBe('ok');
      expect(down.body.checks.replicas.status).toBe('degraded');
      await pause(500);
      const readsWhileDown = await replicaReads(strict);

      await pair.standby.start();
      await replicaState(strict, 'serving', 20_000);
      await pause(500);
      expect(await replicaReads(strict)).toBeGreaterThan(readsWhileDown);
    } finally {
      stop = true;
      await traffic;
    }
    expect({ failures: failures.slice(0, 3), failed: failures.length }).toEqual({ failures: [], failed: 0 });
    expect(served).toBeGreaterThan(20);
  }, 45_000);

  it('when a subscriber hears of a candle and queries at once, then it gets the candle from the primary while the replica lags, and reads return to the replica once it has replayed the event', async () => {
    const series = { id: await seriesId('perp', 'XRP-USDT'), symbol: 'XRP-USDT' };
    await pair.caughtUp();
    await replicaState(patient, 'serving');
    await pauseReplay();

    const key = keys.get(patient)!;
    const heard: MarketEvent[] = [];
    const unlisten = patient.services.events.bus.listen((e) => void heard.push(e));
    const ws = connectWs(patient.url, key);
    sessions.push(ws);
    const sub = ws.subscribe('subscription { candleClosed(exchange: "perp", symbol: "XRP-USDT", timeframe: "1m") { time close } }');
    // Open once the server counts it.
    await pollUntil(async () => (await (await patient.rest('/metrics')).text()).match(/^mds_graphql_subscriptions (\d+)/m)?.[1], (n) => n === '1', { withinMs: 5_000, everyMs: 20 });

    const t = Math.floor(Date.now() / MIN) * MIN - 2 * MIN;
    const minutes = `/v1/ohlcv?symbol=XRP-USDT&exchange=perp&timeframe=1m&start=${t}`;
    // Nothing yet, and no event: the (paused) replica answers.
    expect((await patient.getJson(minutes, key)).body.count).toBe(0);

    await patient.services.writer.candles(series, '1m', [{ time: t, open: '0.5', high: '0.6', low: '0.4', close: '0.55', volume: '100' }]);
    expect(await eventually(() => sub.next.length > 0, 10_000)).toBe(true);
    // Queried the moment the subscriber heard it: there, though the replica has not replayed it.
    const got = await patient.getJson(minutes, key);
    expect({ count: got.body.count, close: got.body.data?.[0]?.close }).toEqual({ count: 1, close: '0.550000' });
    expect(sub.next[0]).toEqual({ data: { candleClosed: { time: iso(t), close: '0.550000' } } });
    const event = heard.find((e) => e.type === 'candle' && e.symbol === 'XRP-USDT');
    expect(event?.lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const h = await health(patient);
    expect(h.body.checks.replicas).toMatchObject({ status: 'ok', newest_event_lsn: event!.lsn, replicas: [{ state: 'catching_up' }] });

    // An event heard from another process (over the bus) holds the reads on the primary the same way.
    await pair.primary.query(`INSERT INTO candles (series_id, timeframe, time, open, high, low, close, volume) VALUES ($1, '1m', $2, 1, 1, 1, 1, 1)`, [series.id, new Date(t + MIN)]);
    const [{ lsn }] = await pair.primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    await patient.services.events.bus.publish({ type: 'quality', exchange: 'perp', symbol: 'NONE-USDT', records: [], lsn });
    expect(await eventually(() => heard.some((e) => e.lsn === lsn), 5_000)).toBe(true);
    expect((await patient.getJson(minutes, key)).body.count).toBe(2);

    await pair.standby.query('SELECT pg_wal_replay_resume()');
    await replicaState(patient, 'serving');
    const reads = await replicaReads(patient);
    expect((await patient.getJson(minutes, key)).body.count).toBe(2);
    expect(await replicaReads(patient)).toBeGreaterThan(reads);
    unlisten();
    sub.stop();
  }, 30_000);
});
