/**
 * Small pages from memory (src/services/reads/response-cache.ts): a small JSON page asked again is
 * answered without a statement, until a watermark of its scope moves: a write of the service, a
 * write of another process on the same database, `mds watermarks bump`. While the server cannot
 * hear the moves (its listening connection lost), pages are read again. On PGlite and PostgreSQL.
 */
import { openServices } from '../../src/composition';
import { HOUR, MINUTE, T0, iso, loadFixtures } from '../helpers/fixtures';
import { testConfig } from '../helpers/config';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';
import { pollUntil } from '../helpers/wait';

const NOW = T0 + 900 * HOUR + 30_000;

describe.each(databaseCases())('small pages from memory on $name', ({ name, create }) => {
  let srv: TestServer;
  let db: FreshDatabase | null;
  let key: string;
  const page = (fromMin: number, extra = '') => `/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${iso(T0 + fromMin * MINUTE)}&end=${iso(T0 + (fromMin + 9) * MINUTE)}${extra}`;
  const get = (path: string, headers: Record<string, string> = {}) => srv.rest(path, { key, headers });
  const ethId = async () => (await srv.services.store.series.idOf({ exchange: 'spot', symbol: 'ETH-USDT' }))!;

  /** The statements the server sends to its database while `fn` runs. */
  async function statementsDuring(fn: () => Promise<unknown>): Promise<number> {
    const spy = jest.spyOn(srv.services.store.db, 'query');
    try {
      await fn();
      return spy.mock.calls.filter((c) => /watermark|FROM candles/.test(String(c[0]))).length;
    } finally {
      spy.mockRestore();
    }
  }

  /** The page's close at row `i`, once the server answers with `close` there (a move is heard when it commits). */
  const closeBecomes = async (path: string, i: number, close: string) =>
    pollUntil(async () => ((await (await get(path)).json()) as { data: Array<{ close: string }> }).data[i].close, (c) => c === close, { withinMs: 5_000, everyMs: 50 });

  beforeAll(async () => {
    db = await create();
    srv = await startTestServer({ clock: () => NOW, database: db?.url });
    await loadFixtures(srv.services, NOW);
    key = await srv.key('pro');
    await pollUntil(async () => srv.services.responses.live, (live) => live, { withinMs: 10_000 });
  }, 180_000);
  afterAll(async () => {
    await srv?.stop();
    await db?.drop();
  });

  it('when a small page is asked again, then it comes from memory, 200 and 304 alike, with no statement', async () => {
    const first = await get(page(10));
    expect(first.status).toBe(200);
    const bytes = await first.text();
    let again: Response | undefined;
    expect(await statementsDuring(async () => (again = await get(page(10))))).toBe(0);
    expect([again!.status, await again!.text(), again!.headers.get('etag')]).toEqual([200, bytes, first.headers.get('etag')]);
    let revalidated: Response | undefined;
    expect(await statementsDuring(async () => (revalidated = await get(page(10), { 'If-None-Match': first.headers.get('etag')! })))).toBe(0);
    expect(revalidated!.status).toBe(304);
    // Other formats and large pages are read every time.
    await get(page(10, '&format=csv'));
    expect(await statementsDuring(() => get(page(10, '&format=csv')))).toBeGreaterThan(0);
  });

  it('when /v1/derivatives was asked with the same parameters first, then /v1/ohlcv still answers its candles (the route is part of the key)', async () => {
    const params = `symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${iso(T0)}&end=${iso(T0 + 2 * HOUR)}`;
    const derivatives = await get(`/v1/derivatives?${params}`);
    expect(((await derivatives.json()) as { data: unknown[] }).data).toEqual([]);
    await get(`/v1/derivatives?${params}`);
    const candles = (await (await get(`/v1/ohlcv?${params}`)).json()) as { data: Array<{ close: string }> };
    expect(candles.data).toHaveLength(3);
    // Its ETag is its own, not the derivatives page's remembered under the same watermark.
    const again = await get(`/v1/ohlcv?${params}`, { 'If-None-Match': derivatives.headers.get('etag')! });
    expect(again.status).toBe(200);
  });

  it('when the service writes a candle of the page, then the next answers read it', async () => {
    const path = page(100);
    await get(path);
    await get(path);
    await srv.services.writer.candles({ id: await ethId(), symbol: 'ETH-USDT' }, '1m', [{ time: T0 + 105 * MINUTE, open: '1', high: '1', low: '1', close: '1.25', volume: '1' }]);
    expect(await closeBecomes(path, 5, '1.250000')).toBe('1.250000');
  });

  it('when a write is made outside the service, then the kept page holds until mds watermarks bump', async () => {
    const path = page(200);
    const before = await (await get(path)).text();
    await srv.services.store.db.query('UPDATE candles SET close = 7.5 WHERE series_id = $1 AND timeframe = $2 AND time = $3', [await ethId(), '1m', new Date(T0 + 203 * MINUTE)]);
    expect(await (await get(path)).text()).toBe(before);
    await srv.services.tags.bumpAll();
    expect(await closeBecomes(path, 3, '7.500000')).toBe('7.500000');
  });

  if (name === 'postgres') {
    it('when another process writes to the same database, then the page is read again', async () => {
      const path = page(300);
      await get(path);
      const other = await openServices(testConfig({ DATABASE_URL: db!.url }), { clock: () => NOW, readReplicas: false });
      try {
        const id = (await other.store.series.idOf({ exchange: 'spot', symbol: 'ETH-USDT' }))!;
        await other.writer.candles({ id, symbol: 'ETH-USDT' }, '1m', [{ time: T0 + 302 * MINUTE, open: '2', high: '2', low: '2', close: '2.5', volume: '1' }]);
      } finally {
        await other.close();
      }
      expect(await closeBecomes(path, 2, '2.500000')).toBe('2.500000');
    });

    it('when the listening connection is lost, then pages are read until it listens again', async () => {
      const path = page(400);
      await get(path);
      const [{ n }] = await srv.services.store.db.query<{ n: number }>(
        "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'mds listen%'",
      );
      expect(n).toBe(1);
      await pollUntil(async () => srv.services.responses.live, (live) => !live, { withinMs: 5_000, everyMs: 10 });
      expect(await statementsDuring(() => get(path))).toBeGreaterThan(0);
      expect(await pollUntil(async () => srv.services.responses.live, (live) => live, { withinMs: 10_000 })).toBe(true);
      await get(path);
      expect(await statementsDuring(() => get(path))).toBe(0);
    });
  }
});
