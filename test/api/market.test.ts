/**
 * Candles, funding and multi-asset through REST and GraphQL, over fixtures with known
 * values, on the embedded database and (with DATABASE_URL) on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import type { QueryOptions } from '../../src/db/database';
import { FIXTURE_SYMBOLS, HOUR, HOURS, MINUTE, MINUTES, T0, iso, loadFixtures, minuteClose, perpClose, rateAt, spotClose } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';
import type { Json } from '../helpers/json';

const NOW = T0 + 900 * HOUR + 30_000;
const DAY = 86_400_000;
const ts = (ms: number) => iso(ms).slice(0, 19) + '+00:00';


describe.each(databaseCases())('market data on $name', ({ create }) => {
  let srv: TestServer;
  let db: FreshDatabase | null;
  let pro: string;
  let free: string;
  let scale: string;
  const get = (path: string, key = pro) => srv.getJson(path, key);
  const gql = async (query: string, variables?: Record<string, unknown>, key = pro) => {
    const res = await srv.gql(query, variables, key);
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    db = await create();
    srv = await startTestServer({ clock: () => NOW, database: db?.url, env: { UPGRADE_URL: 'https://example.com/up' } });
    await loadFixtures(srv.services, NOW);
    [pro, free, scale] = await Promise.all([srv.key('pro'), srv.key('free'), srv.key('scale')]);
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
    await db?.drop();
  });

  describe('GET /v1/ohlcv', () => {
    it('when 1h candles are asked, then exact decimal strings and timestamps come back in order', async () => {
      const r = await get(`/v1/ohlcv?symbol=btc-usdt&exchange=spot&timeframe=1h&start=${iso(T0)}&end=${T0 + 2 * HOUR}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        symbol: 'BTC-USDT',
        exchange: 'spot',
        timeframe: '1h',
        count: 3,
        next_start: null,
        data: [
          { time: ts(T0), open: '100.000000', high: '101.000000', low: '99.000000', close: '100.000000', volume: '0.500000' },
          { time: ts(T0 + HOUR), open: '100.000000', high: '102.000000', low: '99.000000', close: '101.000000', volume: '1.500000' },
          { time: ts(T0 + 2 * HOUR), open: '101.000000', high: '103.000000', low: '100.000000', close: '102.000000', volume: '2.500000' },
        ],
      });
    });

    it('when the 4h rollup is asked, then it aggregates its four hours', async () => {
      const r = await get(`/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=4h&start=${iso(T0)}&limit=1`);
      expect(r.body.data[0]).toEqual({
        time: ts(T0), open: '100.050000', high: '104.050000', low: '99.050000', close: '103.050000', volume: '8.000000',
      });
      expect(r.body.next_start).toBe(ts(T0 + 4 * HOUR));
    });

    it('when paging by next_start, then the walk covers the range with no gap or duplicate', async () => {
      const seen: string[] = [];
      let start: string | null = iso(T0);
      let pages = 0;
      while (start !== null) {
        const r = await get(`/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${encodeURIComponent(start)}&limit=1000`);
        seen.push(...r.body.data.map((c: Json) => c.time));
        start = r.body.next_start;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toHaveLength(MINUTES);
      expect(new Set(seen).size).toBe(MINUTES);
      expect(seen[MINUTES - 1]).toBe(ts(T0 + (MINUTES - 1) * MINUTE));
    });

    it('when limit is omitted, then 1,000 rows; a symbol with no data gives count 0', async () => {
      expect((await get(`/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${T0}`)).body.count).toBe(1000);
      expect((await get(`/v1/ohlcv?symbol=NOPE-USDT&exchange=spot&timeframe=1m&start=${T0}`)).body).toMatchObject({ count: 0, data: [], next_start: null });
    });

    it('when a client accepts gzip, then bodies over 1 KB are compressed', async () => {
      const res = await fetch(`${srv.url}/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${T0}&limit=100`, {
        headers: { 'X-API-Key': pro, 'Accept-Encoding': 'gzip' },
      });
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(((await res.json()) as Json).count).toBe(100);
    });
  });

  describe('GET /v1/funding', () => {
    it('when normalized=false, then rows have time and rate only', async () => {
      const r = await get(`/v1/funding?symbol=BTC-USDT&exchange=perp&start=${iso(T0)}&end=${iso(T0 + HOUR)}`);
      expect(r.body).toEqual({
        symbol: 'BTC-USDT', exchange: 'perp', count: 2, next_start: null,
        data: [{ time: ts(T0), rate: rateAt(0).toFixed(8) }, { time: ts(T0 + HOUR), rate: rateAt(1).toFixed(8) }],
      });
    });

    it('when normalized=true, then rate_normalized follows the 720-rate sample z-score and premium the previous hour closes', async () => {
      const r = await get(`/v1/funding?symbol=BTC-USDT&exchange=perp&start=${iso(T0 + 700 * HOUR)}&normalized=true`);
      expect(r.body.count).toBe(HOURS - 700);
      for (const row of r.body.data as Json[]) {
        const h = (Date.parse(row.time) - T0) / HOUR;
        if (h < 719) {
          expect(row.rate_normalized).toBeNull();
        } else {
          const window = Array.from({ length: 720 }, (_, i) => rateAt(h - 719 + i));
          const mean = window.reduce((a, b) => a + b, 0) / 720;
          const sd = Math.sqrt(window.reduce((a, b) => a + (b - mean) ** 2, 0) / 719);
          expect(Math.abs(Number(row.rate_normalized) - (rateAt(h) - mean) / sd)).toBeLessThanOrEqual(1e-6);
          expect(row.rate_normalized).toMatch(/^-?\d+\.\d{6}$/);
        }
        const premium = (perpClose(h - 1) - spotClose(h - 1)) / spotClose(h - 1);
        expect(Math.abs(Number(row.premium) - premium)).toBeLessThanOrEqual(1e-8);
        expect(row.premium).toMatch(/^-?\d+\.\d{8}$/);
      }
    });

    it('when the first funding hour has no previous candle, then its premium is null', async () => {
      const r = await get(`/v1/funding?symbol=BTC-USDT&exchange=perp&start=${iso(T0)}&end=${iso(T0)}&normalized=true`);
      expect(r.body.data).toEqual([{ time: ts(T0), rate: rateAt(0).toFixed(8), rate_normalized: null, premium: null }]);
    });
  });

  describe('GET /v1/multi-asset', () => {
    it('when a symbol lacks a candle, then its property is absent in that row and timestamps stay aligned', async () => {
      const r = await get(`/v1/multi-asset?symbols=SOL-USDT,eth-usdt,,SOL-USDT&exchange=spot&timeframe=1m&field=close&start=${iso(T0)}&end=${iso(T0 + 4 * MINUTE)}`);
      expect(r.body).toMatchObject({ symbols: ['SOL-USDT', 'ETH-USDT'], exchange: 'spot', timeframe: '1m', field: 'close', count: 5, next_start: null });
      const row = (m: number) => r.body.data[m];
      expect(row(2)).toEqual({ time: ts(T0 + 2 * MINUTE), 'SOL-USDT': minuteClose('SOL-USDT', 2).toFixed(6), 'ETH-USDT': minuteClose('ETH-USDT', 2).toFixed(6) });
      expect(row(3)).toEqual({ time: ts(T0 + 3 * MINUTE), 'ETH-USDT': minuteClose('ETH-USDT', 3).toFixed(6) });
      expect(Object.keys(row(4))).toEqual(['time', 'SOL-USDT', 'ETH-USDT']);
    });

    it('when symbols is repeated in the query string, then the lists are joined', async () => {
      const r = await get(`/v1/multi-asset?symbols=SOL-USDT&symbols=ETH-USDT,SOL-USDT&exchange=spot&timeframe=1m&field=close&start=${T0}&end=${T0}`);
      expect(r.body.symbols).toEqual(['SOL-USDT', 'ETH-USDT']);
    });

    it('when field=funding_rate on 1h, then rates with 8 decimals; on another timeframe or the spot venue, then 400', async () => {
      const r = await get(`/v1/multi-asset?symbols=BTC-USDT&exchange=perp&timeframe=1h&field=funding_rate&start=${iso(T0)}&end=${iso(T0)}`);
      expect(r.body.data).toEqual([{ time: ts(T0), 'BTC-USDT': rateAt(0).toFixed(8) }]);
      expect((await get(`/v1/multi-asset?symbols=BTC-USDT&exchange=perp&timeframe=4h&field=funding_rate&start=${T0}`)).body.error).toBe('INVALID_PARAMETER');
      expect((await get(`/v1/multi-asset?symbols=BTC-USDT&exchange=spot&timeframe=1h&field=funding_rate&start=${T0}`)).body.error).toBe('INVALID_EXCHANGE');
    });
  });

  describe('format=csv', () => {
    const csv = async (path: string) => {
      const res = await srv.rest(path, { key: pro });
      return { status: res.status, type: res.headers.get('content-type'), next: res.headers.get('x-next-start'), text: await res.text() };
    };
    const rowsOf = (text: string) => text.trimEnd().split('\n').map((l) => l.split(','));

    it('when candles are asked as CSV, then a header and the same strings as JSON, with the next page in X-Next-Start', async () => {
      const q = `symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${T0}&limit=3`;
      const j = await get(`/v1/ohlcv?${q}`);
      const c = await csv(`/v1/ohlcv?${q}&format=csv`);
      expect(c.type).toMatch(/^text\/csv/);
      expect(c.next).toBe(j.body.next_start);
      const [head, ...rows] = rowsOf(c.text);
      expect(head).toEqual(['time', 'open', 'high', 'low', 'close', 'volume']);
      expect(rows).toEqual(j.body.data.map((r: Json) => head.map((k) => r[k])));
    });

    it('when a large page is asked as CSV, then it is streamed in chunks (no Content-Length) and equals the JSON page', async () => {
      const q = `symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${T0}&limit=2400`;
      const j = await get(`/v1/ohlcv?${q}`);
      const res = await srv.rest(`/v1/ohlcv?${q}&format=csv`, { key: pro, headers: { 'Accept-Encoding': 'identity' } });
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      expect(res.headers.get('content-length')).toBeNull();
      const [head, ...rows] = rowsOf(await res.text());
      expect(rows.length).toBe(2400);
      expect(rows).toEqual(j.body.data.map((r: Json) => head.map((k) => r[k])));
    });

    it('when normalized funding is asked as CSV, then nulls are empty cells', async () => {
      const q = `symbol=BTC-USDT&exchange=perp&start=${iso(T0)}&end=${iso(T0 + HOUR)}&normalized=true`;
      const c = await csv(`/v1/funding?${q}&format=csv`);
      expect(rowsOf(c.text)).toEqual([
        ['time', 'rate', 'rate_normalized', 'premium'],
        [ts(T0), rateAt(0).toFixed(8), '', ''],
        [ts(T0 + HOUR), rateAt(1).toFixed(8), '', (0.05 / spotClose(0)).toFixed(8)],
      ]);
      expect(c.next).toBeNull();
    });

    it('when multi-asset is asked as CSV, then one column per symbol and an empty cell where a symbol has no value', async () => {
      const c = await csv(`/v1/multi-asset?symbols=SOL-USDT,ETH-USDT&exchange=spot&timeframe=1m&field=close&start=${iso(T0 + 3 * MINUTE)}&end=${iso(T0 + 3 * MINUTE)}&format=csv`);
      expect(rowsOf(c.text)).toEqual([
        ['time', 'SOL-USDT', 'ETH-USDT'],
        [ts(T0 + 3 * MINUTE), '', minuteClose('ETH-USDT', 3).toFixed(6)],
      ]);
    });

    it('when features are asked as CSV, then the same values as JSON', async () => {
      const q = `symbol=BTC-USDT&exchange=perp&timeframe=1h&features=rsi_14,macd&start=${iso(T0 + 30 * HOUR)}&end=${iso(T0 + 40 * HOUR)}`;
      const j = await get(`/v1/features?${q}`);
      const [head, ...rows] = rowsOf((await csv(`/v1/features?${q}&format=csv`)).text);
      expect(rows).toEqual(j.body.data.map((r: Json) => head.map((k) => r[k] ?? '')));
    });

    it('when format is neither json nor csv, or a CSV request fails, then the JSON envelope', async () => {
      const bad = await get(`/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${T0}&format=xml`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('INVALID_PARAMETER');
      const err = await get(`/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=2m&start=${T0}&format=csv`);
      expect(err.body.error).toBe('INVALID_TIMEFRAME');
    });
  });

  describe('GET /v1/markets', () => {
    it('lists every market with its coverage per timeframe', async () => {
      const r = await get('/v1/markets?exchange=perp');
      expect(r.body.markets.map((m: Json) => m.symbol)).toEqual([...FIXTURE_SYMBOLS].sort());
      const btc = r.body.markets.find((m: Json) => m.symbol === 'BTC-USDT');
      expect(btc.coverage).toContainEqual({ timeframe: '1h', first: ts(T0), last: ts(T0 + (HOURS - 1) * HOUR) });
      expect(btc.coverage).toContainEqual({ timeframe: 'funding', first: ts(T0), last: ts(T0 + (HOURS - 1) * HOUR) });
    });
  });

  describe('validation and tier rules, identical through GraphQL', () => {
    const base = `symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${iso(T0)}`;
    const cases: Array<[string, string, number, string, string]> = [
      ['an unknown timeframe', `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=2m&start=${T0}`, 400, 'INVALID_TIMEFRAME', 'pro'],
      ['an unparseable start', `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=yesterday`, 400, 'INVALID_TIMESTAMP', 'pro'],
      ['an impossible date', `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=2024-02-30`, 400, 'INVALID_TIMESTAMP', 'pro'],
      ['start after end', `/v1/ohlcv?${base}&end=${T0 - 1}`, 400, 'INVALID_TIME_RANGE', 'pro'],
      ['no symbol', `/v1/ohlcv?exchange=perp&timeframe=1h&start=${T0}`, 400, 'MISSING_PARAMETER', 'pro'],
      ['no start', `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h`, 400, 'MISSING_PARAMETER', 'pro'],
      ['a malformed symbol', `/v1/ohlcv?symbol=BTCUSDT&exchange=perp&timeframe=1h&start=${T0}`, 400, 'INVALID_PARAMETER', 'pro'],
      ['an unknown exchange', `/v1/ohlcv?symbol=BTC-USDT&exchange=binance&timeframe=1h&start=${T0}`, 400, 'INVALID_EXCHANGE', 'pro'],
      ['limit 0', `/v1/ohlcv?${base}&limit=0`, 400, 'INVALID_PARAMETER', 'pro'],
      ['limit 10001', `/v1/ohlcv?${base}&limit=10001`, 400, 'INVALID_PARAMETER', 'pro'],
      ['limit 2.5', `/v1/ohlcv?${base}&limit=2.5`, 400, 'INVALID_PARAMETER', 'pro'],
      ['funding on the spot venue', `/v1/funding?symbol=BTC-USDT&exchange=spot&start=${T0}`, 400, 'INVALID_EXCHANGE', 'pro'],
      ['normalized=maybe', `/v1/funding?symbol=BTC-USDT&exchange=perp&start=${T0}&normalized=maybe`, 400, 'INVALID_PARAMETER', 'pro'],
      ['empty symbols', `/v1/multi-asset?symbols=,,&exchange=spot&timeframe=1h&field=close&start=${T0}`, 400, 'MISSING_SYMBOLS', 'pro'],
      ['an unknown field', `/v1/multi-asset?symbols=BTC-USDT&exchange=spot&timeframe=1h&field=vwap&start=${T0}`, 400, 'INVALID_PARAMETER', 'pro'],
      ['free asking 1m', `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${T0}`, 403, 'TIER_LIMIT_EXCEEDED', 'free'],
      ['free asking 15m', `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=15m&start=${T0}`, 403, 'TIER_LIMIT_EXCEEDED', 'free'],
      ['free asking 366 days', `/v1/ohlcv?${base}&end=${T0 + 366 * DAY}`, 403, 'TIER_LIMIT_EXCEEDED', 'free'],
      ['free asking funding over 366 days', `/v1/funding?symbol=BTC-USDT&exchange=perp&start=${T0}&end=${T0 + 366 * DAY}`, 403, 'TIER_LIMIT_EXCEEDED', 'free'],
      ['free asking 6 symbols', `/v1/multi-asset?symbols=A-B,C-D,E-F,G-H,I-J,K-L&exchange=spot&timeframe=1h&field=close&start=${T0}`, 403, 'TIER_LIMIT_EXCEEDED', 'free'],
      ['pro asking 31 symbols', `/v1/multi-asset?symbols=${Array.from({ length: 31 }, (_, i) => `S${i}-USDT`).join(',')}&exchange=spot&timeframe=1h&field=close&start=${T0}`, 403, 'TIER_LIMIT_EXCEEDED', 'pro'],
    ];

    it.each(cases)('when REST gets %s (%s), then %d %s in the envelope', async (_w, path, status, code, tier) => {
      const r = await get(path, tier === 'free' ? free : pro);
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject({ error: code, request_id: r.headers.get('x-request-id') });
      if (status === 403) {
        expect(r.body.upgrade_url).toBe('https://example.com/up');
        expect(r.body.message).toMatch(/needs the (pro|scale) plan; your plan is (free|pro)/);
      }
      expect(r.headers.get('x-ratelimit-limit')).not.toBeNull();
    });

    it.each([
      ['free: exactly 365 days', `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${T0}&end=${T0 + 365 * DAY}`, 'free'],
      ['free: 5 symbols', `/v1/multi-asset?symbols=A-B,C-D,E-F,G-H,I-J&exchange=spot&timeframe=1h&field=close&start=${T0}`, 'free'],
      ['free: 5 symbols after de-duplication', `/v1/multi-asset?symbols=A-B,a-b,C-D,E-F,G-H,I-J&exchange=spot&timeframe=1h&field=close&start=${T0}`, 'free'],
      ['pro: 30 symbols', `/v1/multi-asset?symbols=${Array.from({ length: 30 }, (_, i) => `S${i}-USDT`).join(',')}&exchange=spot&timeframe=1h&field=close&start=${T0}`, 'pro'],
      ['scale: 200 symbols', `/v1/multi-asset?symbols=${Array.from({ length: 200 }, (_, i) => `S${i}-USDT`).join(',')}&exchange=spot&timeframe=1h&field=close&start=${T0}`, 'scale'],
    ])('when %s, then 200', async (_w, path, tier) => {
      expect((await get(path, tier === 'free' ? free : tier === 'scale' ? scale : pro)).status).toBe(200);
    });

    it.each([
      ['INVALID_TIMEFRAME', '{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "2m", start: "2024-01-01") { count } } }', pro],
      ['INVALID_TIMESTAMP', '{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "yesterday") { count } } }', pro],
      ['INVALID_TIME_RANGE', '{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "2024-02-01", end: "2024-01-01") { count } } }', pro],
      ['INVALID_EXCHANGE', '{ market(exchange: "spot", symbol: "BTC-USDT") { funding(start: "2024-01-01") { count } } }', pro],
      ['INVALID_PARAMETER', '{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "2024-01-01", limit: 0) { count } } }', pro],
      ['MISSING_SYMBOLS', '{ multiAsset(exchange: "spot", symbols: [" "], timeframe: "1h", field: "close", start: "2024-01-01") { count } }', pro],
      ['MISSING_PARAMETER', '{ market(exchange: "perp", symbol: " ") { coverage { timeframe } } }', pro],
      ['TIER_LIMIT_EXCEEDED', '{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "5m", start: "2024-01-01") { count } } }', 'free'],
    ])('when GraphQL gets a bad request, then extensions.code %s with HTTP 200 and the REST extras', async (code, query, key) => {
      const r = await gql(query, undefined, key === 'free' ? free : (key as string));
      expect(r.status).toBe(200);
      expect(r.body.errors[0].extensions).toMatchObject({ code, request_id: expect.any(String) });
      if (code === 'TIER_LIMIT_EXCEEDED') {
        expect(r.body.errors[0].extensions.upgrade_url).toBe('https://example.com/up');
        expect(r.body.errors[0].message).toBe('timeframe 5m needs the pro plan; your plan is free');
      }
    });
  });

  describe('REST and GraphQL give the same values', () => {
    const cases: Array<[string, string, string, (d: Json) => Json[]]> = [
      [
        'perp 1h candles',
        `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${iso(T0 + 10 * HOUR)}&limit=50`,
        `{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "${iso(T0 + 10 * HOUR)}", limit: 50) { count nextStart data { time open high low close volume } } } }`,
        (d) => d.market.candles.data,
      ],
      [
        'perp 1h candles as columns',
        `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${iso(T0 + 10 * HOUR)}&limit=50`,
        `{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "${iso(T0 + 10 * HOUR)}", limit: 50) { columns { time open high low close volume } } } }`,
        (d) => {
          const c = d.market.candles.columns;
          return c.time.map((time: string, i: number) => ({ time, open: c.open[i], high: c.high[i], low: c.low[i], close: c.close[i], volume: c.volume[i] }));
        },
      ],
      [
        'normalized funding',
        `/v1/funding?symbol=BTC-USDT&exchange=perp&start=${iso(T0 + 715 * HOUR)}&end=${iso(T0 + 730 * HOUR)}&normalized=true`,
        `{ market(exchange: "perp", symbol: "BTC-USDT") { funding(start: "${iso(T0 + 715 * HOUR)}", end: "${iso(T0 + 730 * HOUR)}", normalized: true) { count nextStart data { time rate rate_normalized: rateNormalized premium } } } }`,
        (d) => d.market.funding.data,
      ],
      [
        'multi-asset closes',
        `/v1/multi-asset?symbols=ETH-USDT,SOL-USDT&exchange=spot&timeframe=1m&field=close&start=${T0}&end=${T0 + 9 * MINUTE}`,
        `{ multiAsset(exchange: "spot", symbols: ["ETH-USDT", "SOL-USDT"], timeframe: "1m", field: "close", start: "${T0}", end: "${T0 + 9 * MINUTE}") { count nextStart data { time values { symbol value } } } }`,
        (d) => d.multiAsset.data.map((r: Json) => Object.fromEntries([['time', r.time], ...r.values.map((v: Json) => [v.symbol, v.value])])),
      ],
    ];
    it.each(cases)('%s', async (_w, path, query, pick) => {
      const rest = await get(path);
      const g = await gql(query);
      expect(g.body.errors).toBeUndefined();
      expect(rest.body.data.length).toBeGreaterThan(0);
      expect(pick(g.body.data)).toEqual(rest.body.data);
    });
  });

  describe('GraphQL batching and limits', () => {
    function countQueries<T>(fn: () => Promise<T>): Promise<{ n: number; out: T }> {
      const db = srv.services.store.db;
      const original = db.query;
      let n = 0;
      (db as { query: typeof original }).query = ((text: string, params?: unknown[], opts?: QueryOptions) => {
        n++;
        return original.call(db, text, params, opts);
      }) as typeof original;
      return fn().then(
        (out) => {
          (db as { query: typeof original }).query = original;
          return { n, out };
        },
        (err) => {
          (db as { query: typeof original }).query = original;
          throw err;
        },
      );
    }

    it('when a dashboard query touches 10 markets, then a bounded number of SQL statements run', async () => {
      const q = `{ markets { exchange symbol coverage { timeframe last } candles(timeframe: "1h", start: "${iso(T0)}", limit: 24) { count data { close } } } }`;
      const { n, out } = await countQueries(() => gql(q, undefined, scale));
      expect(out.body.errors).toBeUndefined();
      expect(out.body.data.markets.length).toBe(10);
      expect(out.body.data.markets.every((m: Json) => m.candles.count === 24)).toBe(true);
      // Citus reads each series by its own key: a statement per market for its candles and its coverage.
      expect(n).toBeLessThanOrEqual(srv.services.config.databaseEngine === 'citus' ? 3 + 2 * 10 : 3);

      const aliases = FIXTURE_SYMBOLS.map((s, i) => `m${i}: market(exchange: "perp", symbol: "${s}") { candles(timeframe: "1h", start: "${iso(T0)}", limit: 5) { count } funding(start: "${iso(T0)}") { count } }`).join(' ');
      const second = await countQueries(() => gql(`{ ${aliases} }`, undefined, scale));
      expect(second.out.body.errors).toBeUndefined();
      expect(second.n).toBeLessThanOrEqual(srv.services.config.databaseEngine === 'citus' ? 3 + 2 * 10 : 3);
    });

    it('when a document is too deep or too costly, then it is refused before execution with QUERY_TOO_COMPLEX', async () => {
      // Without `end` a funding window runs to the server's clock (NOW): from two years before it
      // that is over 10,000 hours, so each field costs the most (101) and 25 of them too much.
      const many = Array.from({ length: 25 }, (_, i) => `a${i}: market(exchange: "perp", symbol: "BTC-USDT") { funding(start: "2022-01-01") { count } }`).join(' ');
      const { n, out } = await countQueries(() => gql(`{ ${many} }`));
      expect(out.status).toBe(400);
      expect(out.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', request_id: expect.any(String) });
      expect(n).toBe(0);
      const deep = await gql('{ me { quota { dayLimit } } ' + 'x: me { limits { timeframes } } }');
      expect(deep.status).toBe(200);
      // The same fields over the clock's last 900 hours cost 10 each: admitted.
      const near = Array.from({ length: 25 }, (_, i) => `a${i}: market(exchange: "perp", symbol: "BTC-USDT") { funding(start: "2024-01-01") { count } }`).join(' ');
      expect((await gql(`{ ${near} }`)).status).toBe(200);
    });

    it('when a field limit is exhausted, then RATE_LIMIT_EXCEEDED with retry_after_secs on that field only', async () => {
      const key = await srv.key('scale', randomUUID());
      const q = `{ multiAsset(exchange: "spot", symbols: ["ETH-USDT"], timeframe: "1m", field: "close", start: "${T0}", end: "${T0}") { count } }`;
      const statuses: string[] = [];
      for (let i = 0; i < 121; i++) {
        const r = await gql(q, undefined, key);
        statuses.push(r.body.errors ? r.body.errors[0].extensions.code : 'ok');
        if (r.body.errors) expect(r.body.errors[0].extensions.retry_after_secs).toBe(30);
      }
      expect(statuses.filter((s) => s === 'ok')).toHaveLength(120);
      expect(statuses[120]).toBe('RATE_LIMIT_EXCEEDED');
    }, 60_000);
  });
});
