/**
 * PostgreSQL failing under a running server that reaches its own database through a TCP proxy
 * (test/helpers/tcp-proxy.ts), so the machine's server is never stopped: the proxy cuts (a server
 * down) or goes silent (a partition), then restores. The bounds asserted are the configured
 * timeouts plus slack, not performance targets. Quotas (in Redis with REDIS_URL) keep working and
 * /health names the failed dependency. The clock is held still: requests first pass the key cache
 * and fail on the data, then, the clock moved on, the key lookup itself fails.
 */
import { csvFile } from '../helpers/csv';
import { manualClock, startTestServer, type Json, type TestServer } from '../helpers/server';
import { pause, pollUntil } from '../helpers/wait';
import { describeWith } from '../helpers/requirements';
import { freshPostgres } from '../helpers/databases';
import { proxyFor, type TcpProxy } from '../helpers/tcp-proxy';

const BOUND_MS = 5_000;
const T0 = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const POOL_SIZE = 10;

const OHLCV = `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${T0}`;
const GQL = `{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "${T0}") { count } } }`;

type Kind = 'rest' | 'gql' | 'health' | 'keys' | 'quality';

interface Outcome {
  kind: Kind;
  started: number;
  ms: number;
  status: number;
  headers: Headers;
  body: Json;
}


describeWith('DATABASE_URL', 'PostgreSQL down under a running server', (serverUrl) => {
  const redisUrl = process.env.REDIS_URL || undefined;
  const clock = manualClock(Date.UTC(2024, 0, 10));
  let db: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  let srv: TestServer;
  let key: string;

  async function call(kind: Kind): Promise<Outcome> {
    const started = Date.now();
    const res =
      kind === 'rest'
        ? await srv.rest(OHLCV, { key })
        : kind === 'gql'
          ? await srv.gql(GQL, undefined, key)
          : kind === 'health'
            ? await srv.rest('/health')
            : kind === 'keys'
              ? await srv.rest('/v1/auth/keys', { key })
              : await srv.rest('/v1/quality?symbol=BTC-USDT&exchange=perp', { key });
    const body = (await res.json()) as Json;
    return { kind, started, ms: Date.now() - started, status: res.status, headers: res.headers, body };
  }

  /** The outcome is the one a client must get while the database is away. */
  function expectUnavailable(o: Outcome, gqlRefusedBeforeExecution: boolean): void {
    const where = `${o.kind} (${o.status}, ${o.ms} ms): ${JSON.stringify(o.body)}`;
    expect({ where, fast: o.ms < BOUND_MS }).toEqual({ where, fast: true });
    if (o.kind === 'health') {
      expect({ where, status: o.status, db: o.body.checks?.database?.status }).toEqual({ where, status: 503, db: 'unavailable' });
      expect(o.body.checks.rate_limit_store).toMatchObject({ status: 'ok', kind: redisUrl ? 'redis' : 'memory' });
    } else if (o.kind === 'gql') {
      expect({ where, status: o.status }).toEqual({ where, status: gqlRefusedBeforeExecution ? 503 : 200 });
      expect(o.body.errors?.length).toBeGreaterThan(0);
      for (const e of o.body.errors) expect({ where, code: e.extensions?.code }).toEqual({ where, code: 'SERVICE_UNAVAILABLE' });
    } else {
      expect({ where, status: o.status }).toEqual({ where, status: 503 });
      expect(o.body).toEqual({ error: 'SERVICE_UNAVAILABLE', message: expect.any(String), request_id: o.headers.get('x-request-id') });
    }
  }

  function expectServed(o: Outcome): void {
    const where = `${o.kind} (${o.status}, ${o.ms} ms): ${JSON.stringify(o.body)}`;
    expect({ where, status: o.status }).toEqual({ where, status: 200 });
    if (o.kind === 'rest') expect(o.body.count).toBe(48);
    if (o.kind === 'gql') expect(o.body).toEqual({ data: { market: { candles: { count: 48 } } } });
    if (o.kind === 'health') expect(o.body.status).toBe('ok');
  }

  /** Poll until every kind answers 200 (the service recovered by itself), at most `ms`. */
  const recovered = (ms: number): Promise<Outcome[]> =>
    pollUntil(
      () => Promise.all((['rest', 'gql', 'health', 'keys', 'quality'] as const).map(call)),
      (all) => all.every((o) => o.status === 200 && !o.body.errors),
      { withinMs: ms },
    );

  beforeAll(async () => {
    db = await freshPostgres(serverUrl);
    proxy = await proxyFor(db.url);
    srv = await startTestServer({
      database: proxy.urlFor(db.url),
      clock: clock.now,
      env: {
        LOG_LEVEL: 'warn',
        REDIS_URL: redisUrl,
        DATABASE_POOL_SIZE: String(POOL_SIZE),
        DATABASE_CONNECT_TIMEOUT: '1s',
        DATABASE_QUERY_TIMEOUT: '2s',
        QUALITY_INTERVAL: '24h',
        // The clock stands still: no minute ever ends, so lift the quota out of the way.
        TIER_LIMITS: JSON.stringify({ pro: { minuteRequests: 1_000_000, dailyRequests: null } }),
      },
    });
    const rows = ['time,open,high,low,close,volume'];
    for (let h = 0; h < 48; h++) rows.push(`${iso(T0 + h * HOUR)},100,105,99,${100 + (h % 5)},1`);
    const r = await srv.services.importer.importCandles({ exchange: 'perp', symbol: 'BTC-USDT' }, '1h', csvFile(rows));
    await srv.services.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, clock.now());
    key = await srv.key('pro');
  }, 60_000);

  afterAll(async () => {
    await proxy?.restore();
    await srv?.stop();
    await proxy?.close();
    await db?.drop();
  });

  it('when PostgreSQL is reachable, then every request is served', async () => {
    for (const o of await Promise.all((['rest', 'gql', 'health', 'keys', 'quality'] as const).map(call))) expectServed(o);
  });

  it('when PostgreSQL goes down under traffic, then every request gets 503 SERVICE_UNAVAILABLE quickly, /health included', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    const worker = async (kind: Kind) => {
      while (running) outcomes.push(await call(kind));
    };
    const workers = [worker('rest'), worker('rest'), worker('rest'), worker('gql'), worker('gql'), worker('health')];
    // Traffic served first (a busy machine answers more slowly: wait for the answers, not a time).
    await pollUntil(async () => outcomes.length, (n) => n > 10, { withinMs: 30_000, everyMs: 20 });
    const cutAt = Date.now();
    await proxy.cut();
    await pause(1_500);
    running = false;
    await Promise.all(workers);

    const before = outcomes.filter((o) => o.started + o.ms < cutAt);
    const after = outcomes.filter((o) => o.started > cutAt);
    expect(before.length).toBeGreaterThan(5);
    expect(after.filter((o) => o.kind === 'rest').length).toBeGreaterThan(5);
    expect(after.filter((o) => o.kind === 'gql').length).toBeGreaterThan(2);
    for (const o of before) expectServed(o);
    for (const o of after) expectUnavailable(o, false);
    // Those in flight at the cut: served or refused, never another error, and as quick.
    for (const o of outcomes) {
      expect([200, 503]).toContain(o.status);
      expect(o.ms).toBeLessThan(BOUND_MS);
    }
    // Authentication came from the key cache, and the quota store kept admitting and counting
    // each request (its own remaining count in the headers of every 503).
    const remaining = after.filter((o) => o.kind === 'rest').map((o) => Number(o.headers.get('x-ratelimit-remaining-minute')));
    expect(remaining.every((n) => n > 0 && n < 1_000_000)).toBe(true);
    expect(new Set(remaining).size).toBe(remaining.length);

    // Reads through Prisma (the key list, quality) are 503 too, not a masked 500.
    for (const o of await Promise.all([call('keys'), call('quality'), call('health')])) expectUnavailable(o, false);

    // Once the cached key expires the key lookup fails: GraphQL is refused before execution.
    clock.advance(1_000);
    for (const o of await Promise.all([call('rest'), call('gql'), call('keys'), call('health')])) expectUnavailable(o, true);
  }, 30_000);

  it('when PostgreSQL comes back, then the service recovers without a restart', async () => {
    await proxy.restore();
    for (const o of await recovered(10_000)) expectServed(o);
  }, 30_000);

  it('when PostgreSQL goes silent (connections accepted, nothing answered), then requests still end in 503 within the bound', async () => {
    // Warm connections first, so the silence hits both open connections and new ones.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => call('rest')));
    proxy.blackhole();
    const wave = () => ['rest', 'rest', 'rest', 'gql', 'gql', 'health', 'keys', 'quality'].map((k) => call(k as Kind));
    // Key cached: the reads hang on silent connections until DATABASE_QUERY_TIMEOUT.
    for (const o of await Promise.all(wave())) expectUnavailable(o, false);
    // Again: now the pool has to open connections, which time out (DATABASE_CONNECT_TIMEOUT).
    for (const o of await Promise.all(wave())) expectUnavailable(o, false);
    // Key lookups hang too: refused before execution, as quickly.
    clock.advance(1_000);
    for (const o of await Promise.all(wave())) expectUnavailable(o, true);
  }, 60_000);

  it('when the silence ends, then the service recovers without a restart and holds no stray connections', async () => {
    await proxy.restore();
    for (const o of await recovered(10_000)) expectServed(o);
    // Connections given up on were closed by the server: at most the pool stays open.
    expect(await pollUntil(async () => proxy.openConnections(), (n) => n <= POOL_SIZE, { withinMs: 5_000 })).toBeLessThanOrEqual(POOL_SIZE);
  }, 30_000);
});
