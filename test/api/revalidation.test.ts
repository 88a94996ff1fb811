/**
 * The fast 304 (docs/DECISIONS.md, "Revalidation without reading"): a revalidation of an unchanged
 * page is answered from the tag remembered at its write watermark, without reading the page, and
 * every writer moves that watermark: a repaired candle, a rewritten rollup, recomputed features,
 * a partition dropped by retention, `mds watermarks bump` after a write made outside. The access
 * checks still come first. On PGlite and PostgreSQL, with the memory cache and with Redis.
 */
import { randomUUID } from 'node:crypto';
import { HOUR, MINUTE, T0, iso, loadFixtures } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';
import { serviceUrl } from '../helpers/requirements';

const NOW = T0 + 900 * HOUR + 30_000;
const LIMITS = JSON.stringify({ free: { minuteRequests: 4, dailyRequests: null } });
/** The tags' own path: small pages from memory (response-cache.test.ts) would answer before it. */
const NO_MEMORY = { RESPONSE_CACHE_MB: '0' };

const redisUrl = serviceUrl('REDIS_URL');
const cases = databaseCases().flatMap((db) => [
  { name: `${db.name}, memory cache`, create: db.create, cache: 'memory' as const, env: {} as Record<string, string>, shared: false },
  ...(redisUrl ? [{ name: `${db.name}, Redis cache`, create: db.create, cache: 'redis' as const, env: { REDIS_URL: redisUrl }, shared: db.name === 'postgres' }] : []),
]);

describe.each(cases)('revalidation on $name', ({ create, cache, env, shared }) => {
  const quotaPrefix = `mds:test:${randomUUID()}:`;
  let srv: TestServer;
  /** A second gateway on the same database and Redis (PostgreSQL with Redis only). */
  let peer: TestServer | undefined;
  let db: FreshDatabase | null;
  let key: string;
  const get = (path: string, headers: Record<string, string> = {}, k = key) => srv.rest(path, { key: k, headers });
  const range = (fromMin: number, toMin: number) => `start=${iso(T0 + fromMin * MINUTE)}&end=${iso(T0 + toMin * MINUTE)}`;
  const eth = (timeframe: string, fromMin: number, toMin: number, extra = '') => `/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=${timeframe}&${range(fromMin, toMin)}${extra}`;
  const ethId = async () => (await srv.services.store.series.idOf({ exchange: 'spot', symbol: 'ETH-USDT' }))!;
  /** A write made outside the service's writers: no watermark moves. */
  const rawClose = async (timeframe: string, minute: number, close: string) =>
    srv.services.store.db.query(`UPDATE candles SET close = $1::numeric WHERE series_id = $2 AND timeframe = $3 AND time = $4`, [close, await ethId(), timeframe, new Date(T0 + minute * MINUTE)]);

  /**
   * The read path's SQL statements a server sends to its database (the Database port) while `fn`
   * runs: watermark reads and page reads (ordered, limited scans). A server's schedules (the
   * quality job) may run beside the request; their statements are neither.
   */
  async function statementsDuring(server: TestServer, fn: () => Promise<unknown>): Promise<string[]> {
    const spy = jest.spyOn(server.services.store.db, 'query');
    try {
      await fn();
      return spy.mock.calls.map((call) => String(call[0])).filter((sql) => /watermark_epoch|ORDER BY (\w+\.)?time LIMIT \$/.test(sql));
    } finally {
      spy.mockRestore();
    }
  }

  /** Statements that read a page's rows (the watermark read alone names none of these tables). */
  const pageReads = (statements: string[]) => statements.filter((sql) => /\b(FROM|JOIN)\s+(candles|features|funding_rates|derivatives)\b/.test(sql));

  /** Asks `path` twice: the second, with the first's tag, must be a 304 from one statement, the watermark's, and no read of the page. */
  async function warm(path: string): Promise<string> {
    const first = await get(path);
    expect([path, first.status]).toEqual([path, 200]);
    const tag = first.headers.get('etag')!;
    let again: Response | undefined;
    const statements = await statementsDuring(srv, async () => (again = await get(path, { 'If-None-Match': tag })));
    expect([path, again!.status, again!.headers.get('etag')]).toEqual([path, 304, tag]);
    expect([path, pageReads(statements), statements.length]).toEqual([path, [], 1]);
    return tag;
  }

  beforeAll(async () => {
    db = await create();
    srv = await startTestServer({ clock: () => NOW, database: db?.url, env: { TIER_LIMITS: LIMITS, ...NO_MEMORY, ...env }, quotaPrefix });
    await loadFixtures(srv.services, NOW);
    key = await srv.key('pro');
    if (shared) peer = await startTestServer({ clock: () => NOW, database: db?.url, env: { TIER_LIMITS: LIMITS, ...NO_MEMORY, ...env }, quotaPrefix });
  }, 180_000);
  afterAll(async () => {
    jest.restoreAllMocks();
    await peer?.stop();
    await srv?.stop();
    await db?.drop();
  });

  it('when the server starts, then its tags are remembered in the configured cache', () => {
    expect(srv.services.tags.cacheKind).toBe(cache);
  });

  it('when a data page is asked again with its tag, then 304 without reading it, on every data route and format', async () => {
    const routes = [
      eth('1m', 10, 20),
      eth('1m', 0, 2000, '&format=csv&limit=10'),
      eth('1h', 0, 600, '&format=arrow'),
      `/v1/features?symbol=ETH-USDT&exchange=spot&timeframe=1m&features=rsi_14&${range(10, 20)}`,
      `/v1/funding?symbol=BTC-USDT&exchange=perp&normalized=true&${range(0, 48 * 60)}`,
      `/v1/multi-asset?symbols=BTC-USDT,ETH-USDT&exchange=spot&timeframe=1h&field=close&${range(0, 48 * 60)}`,
      `/v1/derivatives?symbol=BTC-USDT&exchange=perp&timeframe=1m&${range(0, 60)}`,
    ];
    for (const path of routes) await warm(path);
    // The CSV page's 304 keeps its X-Next-Start.
    const csv = await get(routes[1]);
    expect((await get(routes[1], { 'If-None-Match': csv.headers.get('etag')! })).headers.get('x-next-start')).toBe(csv.headers.get('x-next-start'));
  });

  it('when a page is read, then its rows and its watermark come from one statement (one snapshot)', async () => {
    for (const path of [eth('1m', 30, 40), eth('1m', 30, 40, '&format=csv'), `/v1/funding?symbol=BTC-USDT&exchange=perp&${range(0, 48 * 60)}`]) {
      let answer: Response | undefined;
      const statements = await statementsDuring(srv, async () => (answer = await get(path)));
      expect([path, answer!.status, statements.length, pageReads(statements).length]).toEqual([path, 200, 1, 1]);
      expect(statements[0]).toMatch(/watermark_epoch/);
    }
  });

  if (shared) {
    it('when another gateway on the same database and Redis is asked to revalidate, then it answers 304 from the tag the first remembered', async () => {
      const path = eth('1m', 50, 60);
      const tag = (await get(path)).headers.get('etag')!;
      let again: Response | undefined;
      const statements = await statementsDuring(peer!, async () => (again = await peer!.rest(path, { key, headers: { 'If-None-Match': tag } })));
      expect([again!.status, again!.headers.get('etag'), pageReads(statements)]).toEqual([304, tag, []]);
    });
  }

  it('when a candle inside the page is repaired, then the revalidation reads it and the tag changes', async () => {
    const path = eth('1m', 100, 110);
    const tag = await warm(path);
    await srv.services.writer.candles({ id: await ethId(), symbol: 'ETH-USDT' }, '1m', [{ time: T0 + 105 * MINUTE, open: '1', high: '1', low: '1', close: '1', volume: '1' }]);
    const after = await get(path, { 'If-None-Match': tag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect(((await after.json()) as { data: Array<{ close: string }> }).data[5].close).toBe('1.000000');
  });

  it('when a rollup is rewritten, then the coarser page\'s tag changes', async () => {
    const path = eth('5m', 200, 300);
    const tag = await warm(path);
    // The 1m candle changed where no watermark sees it; the rollup that follows writes the 5m one.
    await rawClose('1m', 204, '7.5');
    const id = await ethId();
    await srv.services.store.transaction((tx) => tx.candles.rollUp({ seriesId: id, from: '1m', startMs: T0 + 200 * MINUTE, endMs: T0 + 204 * MINUTE }, NOW));
    const after = await get(path, { 'If-None-Match': tag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect(((await after.json()) as { data: Array<{ close: string }> }).data[0].close).toBe('7.500000');
  });

  it('when features are recomputed, then the feature page\'s tag changes', async () => {
    const path = `/v1/features?symbol=ETH-USDT&exchange=spot&timeframe=1m&features=vwap_20&${range(300, 320)}`;
    const tag = await warm(path);
    await rawClose('1m', 310, '9999');
    await srv.services.featurePrecompute.technical(await ethId(), '1m', T0 + 310 * MINUTE);
    const after = await get(path, { 'If-None-Match': tag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
  });

  it('when a write is made outside the service, then the old tag holds until mds watermarks bump', async () => {
    const path = eth('1m', 400, 410);
    const tag = await warm(path);
    await rawClose('1m', 405, '3.25');
    expect((await get(path, { 'If-None-Match': tag })).status).toBe(304);
    await srv.services.tags.bumpAll();
    const after = await get(path, { 'If-None-Match': tag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
  });

  it('when a page is asked again without a tag, then the 200 carries the tag remembered at its watermark, not a new hash of its bytes', async () => {
    const path = eth('1m', 420, 430);
    const tag = await warm(path);
    // Unchanged bytes: the same tag either way.
    expect((await get(path)).headers.get('etag')).toBe(tag);
    // Changed bytes behind the watermarks: a hash would give a new tag; the remembered one is sent.
    await rawClose('1m', 425, '4.75');
    const stale = await get(path);
    expect([stale.status, stale.headers.get('etag')]).toEqual([200, tag]);
    expect(((await stale.json()) as { data: Array<{ close: string }> }).data[5].close).toBe('4.750000');
    await srv.services.tags.bumpAll();
    const fresh = await get(path);
    expect([fresh.status, fresh.headers.get('etag') === tag]).toEqual([200, false]);
    // CSV pages (their X-Next-Start remembered too) and dataframes take the same path.
    for (const extra of ['&format=csv&limit=5', '&format=parquet']) {
      const first = await get(eth('1m', 420, 430, extra));
      const again = await get(eth('1m', 420, 430, extra));
      expect([again.headers.get('etag'), again.headers.get('x-next-start')]).toEqual([first.headers.get('etag'), first.headers.get('x-next-start')]);
    }
  });

  it('when the request is refused (401, 400, 403, 429), then no 304 even with the remembered tag; a 304 carries the quota headers', async () => {
    const path = eth('1h', 0, 600);
    const free = await srv.key('free');
    const first = await get(path, {}, free);
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag')!;
    const fast = await get(path, { 'If-None-Match': tag }, free);
    expect(fast.status).toBe(304);
    expect(fast.headers.get('x-ratelimit-limit')).toBe('4');
    expect(Number(fast.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    expect((await fetch(`${srv.url}${path}`, { headers: { 'If-None-Match': tag } })).status).toBe(401);
    expect((await get(`${path}&limit=0`, { 'If-None-Match': tag }, free)).status).toBe(400);
    const oneMinute = eth('1m', 10, 20);
    const proTag = (await get(oneMinute)).headers.get('etag')!;
    expect((await get(oneMinute, { 'If-None-Match': proTag }, free)).status).toBe(403);
    const limited = await get(path, { 'If-None-Match': tag }, free);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('etag')).toBeNull();
  });

  it('when retention drops the page\'s partition, then the tag changes (the page is empty)', async () => {
    const path = eth('15m', 0, 600);
    const tag = await warm(path);
    const dropped = await srv.services.store.partitions.dropBefore('15m', Date.UTC(2025, 0, 1));
    // On an engine's layout (docs/SCALING.md) retention deletes the rows instead.
    if (srv.services.config.databaseEngine === 'postgres') expect(dropped).toContain('candles_15m_2024');
    const after = await get(path, { 'If-None-Match': tag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect(((await after.json()) as { count: number }).count).toBe(0);
  });
});
