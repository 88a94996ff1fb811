/**
 * The Bybit adapter against the venue's real recorded answers, replayed by a local server
 * (test/fixtures/venues/bybit-perp-recorded.json names each source: ccxt's static responses for
 * kline, tickers and open-interest; hirokisan/bybit's golden files for funding history and
 * instruments-info, which stored only the `result`, wrapped here in the envelope; ccxt issue
 * #21451 for the tickers snapshot and delta; directionalscalper #57 for 10006). The mark, index
 * and premium klines are documentation examples.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import recorded from '../fixtures/venues/bybit-perp-recorded.json';
import { BybitVenue } from '../../src/venues/bybit.venue';
import { VenueRefusedError, type ClosedCandle, type ContextUpdate } from '../../src/venues/venue';

type Answers = Record<string, { body: unknown }>;
const answers = (recorded as { answers: Answers }).answers;
const body = (kind: string) => answers[kind].body;
/** A result the SDK stored without its envelope, in the envelope the venue sends. */
const enveloped = (result: unknown) => ({ retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: 1679706000000 });

describe('Bybit adapter on recorded answers', () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let base: string;
  const asked: string[] = [];
  const rejected: string[] = [];
  let now = 1706803708087; // the recorded kline answer's `time`
  let clock = () => now;
  let wsFrames: unknown[] = [];
  const wsReceived: unknown[] = [];

  const routes: Record<string, () => unknown> = {
    '/v5/market/kline': () => body('kline'),
    '/v5/market/funding/history': () => enveloped(body('funding_history')),
    '/v5/market/instruments-info': () => enveloped((body('instruments_info') as { LinearInverse: unknown }).LinearInverse),
    '/v5/market/tickers': () => body('tickers'),
    '/v5/market/open-interest': () => body('open_interest'),
    '/v5/market/premium-index-price-kline': () => body('premium_index_price_kline'),
    '/v5/market/mark-price-kline': () => body('mark_price_kline'),
    '/v5/market/index-price-kline': () => body('index_price_kline'),
  };

  const venue = (symbolMap = {}) =>
    new BybitVenue({
      apiUrl: base,
      wsUrl: `${base.replace('http', 'ws')}/v5/public/linear`,
      weightPerMinute: 6000,
      symbolMap,
      socketTimeoutMs: 5_000,
      observer: { request() {}, weight() {}, reconnect() {}, rejected: (_v, kind, reason) => rejected.push(`${kind}: ${reason}`) },
      now: () => clock(),
    });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      asked.push(`${url.pathname}?${url.searchParams}`);
      const route = routes[url.pathname] as (() => unknown) | undefined;
      res.writeHead(route ? 200 : 404, { 'content-type': 'application/json' }).end(route ? JSON.stringify(route()) : '');
    });
    wss = new WebSocketServer({ server });
    wss.on('connection', (ws) => {
      ws.on('message', (data) => wsReceived.push(JSON.parse(data.toString())));
      for (const f of wsFrames) ws.send(JSON.stringify(f));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    wss.close();
    await new Promise((r) => server.close(r));
  });

  it('reads a recorded kline page (newest first, string times and retCode) ascending; only candles closed by now', async () => {
    const page = await venue().candles('BTCUSDT', '1h', 1706630400000, 1706637600000);
    expect(page.rows).toEqual([
      { time: 1706630400000, open: '43350.7', high: '43492.5', low: '43204.5', close: '43488', volume: '1341.261', quoteVolume: '58117391.4117' },
      { time: 1706634000000, open: '43488', high: '43579.5', low: '43286.8', close: '43376.1', volume: '3199.431', quoteVolume: '138878389.2519' },
      { time: 1706637600000, open: '43376.1', high: '43474.1', low: '43264.8', close: '43352.8', volume: '1575.305', quoteVolume: '68345898.1407' },
    ]);
    expect(asked.at(-1)).toBe('/v5/market/kline?category=linear&symbol=BTCUSDT&interval=60&start=1706630400000&end=1706637600000&limit=1000');
    now = 1706637600000 + 1_800_000; // the newest still open: dropped, as the venue sends it
    expect((await venue().candles('BTCUSDT', '1h', 1706630400000, 1706637600000)).rows.map((r) => r.time)).toEqual([1706630400000, 1706634000000]);
    now = 1706803708087;
  });

  it('reads recorded funding history (newest first, string stamps) ascending, asking by endTime', async () => {
    now = 1679706000000;
    expect(await venue().funding('BTCUSDT', 1679587200000, 1679702400000)).toEqual([
      { time: 1679587200000, rate: '0.0001' },
      { time: 1679616000000, rate: '-0.0032142' },
      { time: 1679644800000, rate: '-0.00086576' },
      { time: 1679673600000, rate: '-0.00230379' },
      { time: 1679702400000, rate: '0.0001' },
    ]);
    expect(asked.at(-1)).toBe('/v5/market/funding/history?category=linear&symbol=BTCUSDT&endTime=1679702400000&limit=200');
    now = 1706803708087;
  });

  it('walks funding pages back from the newest: the next page ends before the oldest row of the last', async () => {
    const page = Array.from({ length: 200 }, (_, i) => ({ symbol: 'BTCUSDT', fundingRate: '0.0001', fundingRateTimestamp: String(1679702400000 - i * 28_800_000) }));
    const oldest = 1679702400000 - 199 * 28_800_000;
    let calls = 0;
    routes['/v5/market/funding/history'] = () => enveloped({ category: 'linear', list: calls++ === 0 ? page : [{ symbol: 'BTCUSDT', fundingRate: '-0.0002', fundingRateTimestamp: String(oldest - 28_800_000) }] });
    try {
      now = 1679706000000;
      const rows = await venue().funding('BTCUSDT', oldest - 28_800_000);
      expect(rows).toHaveLength(201);
      expect(rows[0]).toEqual({ time: oldest - 28_800_000, rate: '-0.0002' });
      expect(asked.at(-1)).toContain(`endTime=${oldest - 1}`);
    } finally {
      routes['/v5/market/funding/history'] = () => enveloped(body('funding_history'));
      now = 1706803708087;
    }
  });

  it('lists the recorded linear perpetuals trading, with fundingInterval minutes as hours', async () => {
    const v = venue();
    expect([...(await v.listed())].sort()).toEqual(['10000NFTUSDT', '1000BONKUSDT', '1000BTTUSDT']);
    expect(await v.fundingInterval('1000BONKUSDT')).toBe(8);
    const changed = enveloped({ category: 'linear', nextPageCursor: '', list: [{ ...(routes['/v5/market/instruments-info']() as { result: { list: object[] } }).result.list[0], fundingInterval: 240 }] });
    routes['/v5/market/instruments-info'] = () => changed;
    try {
      expect(await venue().fundingInterval('10000NFTUSDT')).toBe(4);
    } finally {
      routes['/v5/market/instruments-info'] = () => enveloped((body('instruments_info') as { LinearInverse: unknown }).LinearInverse);
    }
  });

  it('makes a context of the recorded ticker: mark, index as oracle, fundingRate as the predicted rate, open interest, mid of bid1/ask1', async () => {
    const [u] = await venue().contexts(['BTCUSDT']);
    expect(u.instrument).toBe('BTCUSDT');
    expect(u.context).toEqual({ markPrice: '51444.4', oraclePrice: '51469.95', fundingRate: '-0.00046295', openInterest: '225766.793', midPrice: '51444.35', premium: null });
  });

  it('reads the recorded 1h open interest as the close of the bucket before its stamp; one short page ends the walk', async () => {
    const stamp = 1739725200000;
    now = 1739725954780;
    expect(await venue().openInterestHistory('BTCUSDT', stamp - 300_000, stamp - 300_000)).toEqual([{ time: stamp - 300_000, openInterest: '62129.455' }]);
    expect(asked.filter((q) => q.startsWith('/v5/market/open-interest')).at(-1)).toBe(
      `/v5/market/open-interest?category=linear&symbol=BTCUSDT&intervalTime=5min&startTime=${stamp}&endTime=${stamp}&limit=200`,
    );
    now = 1706803708087;
  });

  it('asks open interest in windows of one page, following the cursor where a window comes in shorter pages', async () => {
    const stamp = 1739725200000;
    // Answers each window newest first, 100 a page, older pages by cursor (lasttime in seconds).
    routes['/v5/market/open-interest'] = () => {
      const q = new URL(`http://x${asked.at(-1)!}`).searchParams;
      const before = q.get('cursor') ? Number(/lasttime=(\d+)/.exec(decodeURIComponent(q.get('cursor')!))![1]) * 1000 : Infinity;
      const stamps: number[] = [];
      for (let t = Math.min(Number(q.get('endTime')), before - 300_000); t >= Number(q.get('startTime')) && stamps.length < 100; t -= 300_000) stamps.push(t);
      const more = stamps.length === 100 && stamps.at(-1)! > Number(q.get('startTime'));
      const list = stamps.map((t) => ({ openInterest: '62129.45500000', timestamp: String(t) }));
      return { ...(body('open_interest') as object), result: { symbol: 'BTCUSDT', category: 'linear', list, nextPageCursor: more ? encodeURIComponent(`lastid=1&lasttime=${stamps.at(-1)! / 1000}`) : '' } };
    };
    try {
      now = 1739725954780;
      const points = await venue().openInterestHistory('BTCUSDT', stamp - 201 * 300_000, stamp - 300_000);
      expect(points.map((p) => p.time)).toEqual(Array.from({ length: 201 }, (_, i) => stamp - (201 - i) * 300_000));
      // The first window (200 stamps) in two pages, the second (one stamp) in one.
      const windows = asked.filter((q) => q.startsWith('/v5/market/open-interest')).slice(-3);
      expect(windows.map((q) => [/startTime=(\d+)/.exec(q)![1], q.includes('cursor=')])).toEqual([
        [String(stamp - 200 * 300_000), false],
        [String(stamp - 200 * 300_000), true],
        [String(stamp), false],
      ]);
    } finally {
      routes['/v5/market/open-interest'] = () => body('open_interest');
      now = 1706803708087;
    }
  });

  it("reads one side of open interest where today's venue sends both (singleOpenInterest beside the both-sides openInterest)", async () => {
    // The recorded ticker as the venue has sent it since 2026: its value as one side, twice it as both.
    const recordedTicker = body('tickers') as { result: { list: Array<Record<string, string>> } };
    const t = recordedTicker.result.list[0];
    routes['/v5/market/tickers'] = () => ({ ...recordedTicker, result: { ...recordedTicker.result, list: [{ ...t, openInterest: '451533.586', singleOpenInterest: t.openInterest }] } });
    try {
      const [u] = await venue().contexts(['BTCUSDT']);
      expect(u.context.openInterest).toBe('225766.793');
    } finally {
      routes['/v5/market/tickers'] = () => body('tickers');
    }
  });

  it('backfills a past minute from the documented mark, index and premium klines: their closes, open interest unknown', async () => {
    const minute = 1670608800000;
    const moved = (kind: string) => () => {
      const b = body(kind) as { result: { list: unknown[][] } };
      return { ...b, result: { ...b.result, list: b.result.list.slice(0, 1).map((row) => [String(minute), ...row.slice(1)]) } };
    };
    routes['/v5/market/premium-index-price-kline'] = moved('premium_index_price_kline');
    routes['/v5/market/index-price-kline'] = moved('index_price_kline');
    try {
      now = minute + 120_000;
      expect(await venue().pastContext('BTCUSDT', minute, minute)).toEqual([
        { time: minute, markPrice: '17131.64', oraclePrice: '17163.07', venuePremium: '-0.000344', openInterestOpen: null, openInterestHigh: null, openInterestLow: null, openInterest: null, midPrice: null, predictedFundingRate: null },
      ]);
      now = minute + 59_000;
      expect(await venue().pastContext('BTCUSDT', minute, minute)).toEqual([]);
    } finally {
      routes['/v5/market/premium-index-price-kline'] = () => body('premium_index_price_kline');
      routes['/v5/market/index-price-kline'] = () => body('index_price_kline');
      now = 1706803708087;
    }
  });

  it('follows the recorded socket: an open kline is ignored, a confirmed one is a candle beside the next open one; tickers deltas merge into the snapshot', async () => {
    const open = body('ws_kline') as { data: Array<Record<string, unknown>> };
    // The recorded frame closing, as Bybit sends it: confirmed, and the next minute's candle beside it.
    const closing = { ...open, data: [{ ...open.data[0], confirm: true }, { ...open.data[0], start: 1719667620000, end: 1719667679999, confirm: false }] };
    wsFrames = [body('ws_pong'), open, closing, { ...(body('ws_tickers_delta') as object), topic: 'tickers.BTCUSDT' }, body('ws_tickers_snapshot'), body('ws_tickers_delta')];
    const closed: ClosedCandle[] = [];
    const contexts: ContextUpdate[] = [];
    const v = venue();
    const stream = v.follow(['BTCUSDT', 'NKNUSDT'], { onConnected() {}, onDisconnected() {}, onClosed: (c) => closed.push(c), onContext: (u) => contexts.push(u) });
    for (let i = 0; i < 500 && (contexts.length < 2 || closed.length < 1); i++) await new Promise((r) => setTimeout(r, 20));
    stream.close();
    v.close();
    wsFrames = [];
    expect(closed).toEqual([{ instrument: 'BTCUSDT', candle: { time: 1719667560000, open: '61030', high: '61030', low: '61015', close: '61029.9', volume: '10.798', quoteVolume: '658980.4245' } }]);
    // The snapshot, then the delta (only ask1Size changed: the same context); the delta before any snapshot is dropped.
    const nkn = { markPrice: '0.13946', oraclePrice: '0.13909', fundingRate: '0.00137968', openInterest: '12675990', midPrice: '0.139395', premium: null };
    expect(contexts).toEqual([
      { instrument: 'NKNUSDT', context: nkn },
      { instrument: 'NKNUSDT', context: nkn },
    ]);
    expect(wsReceived).toContainEqual({ op: 'subscribe', req_id: 'mds-0', args: ['kline.1.BTCUSDT', 'tickers.BTCUSDT', 'kline.1.NKNUSDT', 'tickers.NKNUSDT'] });
  });

  it('waits out a recorded 10006 "Too many visits" and asks again; refuses a symbol the venue calls invalid', async () => {
    let calls = 0;
    routes['/v5/market/kline'] = () => (calls++ === 0 ? body('error_rate_limit') : body('kline'));
    // The wait (a backoff: the recorded answer names no reset time) runs on the adapter's clock: let it run.
    const t0 = Date.now();
    clock = () => now + (Date.now() - t0);
    try {
      expect((await venue().candles('BTCUSDT', '1h', 1706630400000, 1706637600000)).rows).toHaveLength(3);
      expect(calls).toBe(2);
      // The recorded answer (logged by a Java SDK as a Map), as the JSON the venue sends.
      routes['/v5/market/kline'] = () => ({ retCode: 10001, retMsg: 'params error: symbol invalid', result: { category: '', list: [] }, retExtInfo: {}, time: 1717486429851 });
      const err = await venue().candles('BTCUSDT', '1h', 1706630400000, 1706637600000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VenueRefusedError);
      expect((err as Error).message).toBe('bybit refused: retCode 10001 params error: symbol invalid');
    } finally {
      routes['/v5/market/kline'] = () => body('kline');
      clock = () => now;
    }
  });

  it('parsed every recorded answer it was given without a rejection', () => {
    expect(rejected).toEqual([]);
  });
});
