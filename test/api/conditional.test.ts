/**
 * Conditional GET on the REST data routes: the ETag follows what a page contains (a repaired
 * candle in the page changes it, a candle stored after its end does not), If-None-Match is
 * answered 304 after the access checks (the quota still counted), and Cache-Control lets
 * clients keep settled history. On the embedded database and (with DATABASE_URL) on PostgreSQL.
 */
import { HOUR, MINUTE, MINUTES, T0, iso, loadFixtures } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';

const NOW = T0 + 900 * HOUR + 30_000;

describe.each(databaseCases())('conditional GET on $name', ({ create }) => {
  let srv: TestServer;
  let db: FreshDatabase | null;
  let key: string;
  const get = (path: string, headers: Record<string, string> = {}) => srv.rest(path, { key, headers });
  /** ETH-USDT spot 1m: minutes [from, to] of the fixture (closed long before NOW). */
  const ethPage = (from: number, to: number, extra = '') =>
    `/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${iso(T0 + from * MINUTE)}&end=${iso(T0 + to * MINUTE)}${extra}`;
  /** Store one ETH-USDT spot 1m candle (close `c`) through the live write path, as a repair would. */
  const storeMinute = async (m: number, c: string) => {
    const id = await srv.services.store.series.idOf({ exchange: 'spot', symbol: 'ETH-USDT' });
    await srv.services.writer.candles({ id: id!, symbol: 'ETH-USDT' }, '1m', [{ time: T0 + m * MINUTE, open: c, high: c, low: c, close: c, volume: '1' }]);
  };

  beforeAll(async () => {
    db = await create();
    srv = await startTestServer({ clock: () => NOW, database: db?.url });
    await loadFixtures(srv.services, NOW);
    key = await srv.key('pro');
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
    await db?.drop();
  });

  it('when a settled page is asked, then a strong ETag, private max-age and Vary come with it', async () => {
    const r = await get(ethPage(10, 20));
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(r.headers.get('cache-control')).toBe('private, max-age=300');
    expect(r.headers.get('vary')).toMatch(/X-API-Key/);
    expect(r.headers.get('vary')).toMatch(/Accept-Encoding/);
    expect(r.headers.get('access-control-expose-headers')).toMatch(/ETag/);
  });

  it('when If-None-Match names the page, then 304 without a body, the same tag, and the quota counted', async () => {
    const first = await get(ethPage(30, 40));
    const tag = first.headers.get('etag')!;
    const before = Number(first.headers.get('x-ratelimit-remaining'));
    const again = await get(ethPage(30, 40), { 'If-None-Match': tag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(tag);
    expect(again.headers.get('cache-control')).toBe('private, max-age=300');
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    // A list, a weak form and * match too; another tag does not.
    expect((await get(ethPage(30, 40), { 'If-None-Match': `"other", W/${tag}` })).status).toBe(304);
    expect((await get(ethPage(30, 40), { 'If-None-Match': '*' })).status).toBe(304);
    expect((await get(ethPage(30, 40), { 'If-None-Match': '"other"' })).status).toBe(200);
  });

  it('when the request is refused, then no ETag and no 304 (the checks come first)', async () => {
    const bad = await get('/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=7m&start=0', { 'If-None-Match': '*' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('etag')).toBeNull();
    const noKey = await fetch(`${srv.url}${ethPage(30, 40)}`, { headers: { 'If-None-Match': '*' } });
    expect(noKey.status).toBe(401);
  });

  it('when a candle inside the page is repaired, then its ETag changes; a candle after its end leaves it', async () => {
    const path = ethPage(100, 110);
    const features = `/v1/features?symbol=ETH-USDT&exchange=spot&timeframe=1m&features=rsi_14,vwap_20&start=${iso(T0 + 100 * MINUTE)}&end=${iso(T0 + 110 * MINUTE)}`;
    const tag = (await get(path)).headers.get('etag')!;
    const featuresTag = (await get(features)).headers.get('etag')!;

    await storeMinute(MINUTES, '2100.5'); // the minute after the fixture's last, long after `end`
    expect((await get(path, { 'If-None-Match': tag })).status).toBe(304);
    expect((await get(features, { 'If-None-Match': featuresTag })).status).toBe(304);

    await storeMinute(105, '2001.25'); // inside the page: a repaired close
    const changed = await get(path, { 'If-None-Match': tag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
    const body = (await changed.json()) as { data: Array<{ close: string }> };
    expect(body.data[5].close).toBe('2001.250000');
    // Its features were recomputed with it: their page's tag moved too.
    expect((await get(features, { 'If-None-Match': featuresTag })).status).toBe(200);
  });

  it('when the page is open-ended or ends in the last 5 minutes, then no-cache, and its tag holds while nothing changes', async () => {
    const open = `/v1/ohlcv?symbol=BTC-USDT&exchange=spot&timeframe=1h&start=${iso(NOW - 5 * HOUR)}`;
    const r = await get(open);
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect((await get(open, { 'If-None-Match': r.headers.get('etag')! })).status).toBe(304);
    const recent = await get(`/v1/ohlcv?symbol=BTC-USDT&exchange=spot&timeframe=1m&start=${NOW - 10 * MINUTE}&end=${NOW - 2 * MINUTE}`);
    expect(recent.headers.get('cache-control')).toBe('no-cache');
  });

  it('when the same page is asked as CSV, then it has a tag of its own and answers 304 with X-Next-Start kept', async () => {
    const path = ethPage(0, 2000, '&format=csv&limit=10');
    const csv = await get(path);
    const json = await get(ethPage(0, 2000, '&limit=10'));
    expect(csv.headers.get('etag')).not.toBe(json.headers.get('etag'));
    const again = await get(path, { 'If-None-Match': csv.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-next-start')).toBe(csv.headers.get('x-next-start'));
  });

  it('when funding, multi-asset, features, quality and markets are asked twice, then each answers 304 to its own tag', async () => {
    const paths = [
      `/v1/funding?symbol=BTC-USDT&exchange=perp&start=${iso(T0)}&end=${iso(T0 + 48 * HOUR)}`,
      `/v1/multi-asset?symbols=BTC-USDT,ETH-USDT&exchange=spot&timeframe=1h&field=close&start=${iso(T0)}&end=${iso(T0 + 48 * HOUR)}`,
      `/v1/features?symbol=BTC-USDT&exchange=spot&timeframe=1h&features=rsi_14&start=${iso(T0)}&end=${iso(T0 + 48 * HOUR)}`,
      '/v1/quality?symbol=BTC-USDT&exchange=spot',
      '/v1/markets',
    ];
    for (const path of paths) {
      const first = await get(path);
      expect([path, first.status]).toEqual([path, 200]);
      expect([path, (await get(path, { 'If-None-Match': first.headers.get('etag')! })).status]).toEqual([path, 304]);
    }
  });
});
