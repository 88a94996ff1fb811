/**
 * The Binance USD-M adapter against the venue's real recorded answers, replayed by a local server
 * (test/fixtures/venues/binance-perp-recorded.json names each source: EzequielBes/invest@8f58c5d7
 * for klines, fundingRate and openInterestHist; crypto-crawler-rs@3f1bf6da for openInterest and
 * the markPrice stream; bmoscon/cryptofeed@f60e8395 for exchangeInfo and the kline stream;
 * kythanhlewill-bit/MMW@9c4be0c2 for premiumIndex; hexdocs' binance_futures for indexPriceKlines).
 * fundingInfo, bookTicker, markPriceKlines and premiumIndexKlines are documentation examples.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import recorded from '../fixtures/venues/binance-perp-recorded.json';
import { midOf } from '../../src/venues/perp-context';
import { BinancePerpVenue } from '../../src/venues/binance-perp.venue';
import type { ClosedCandle, ContextUpdate } from '../../src/venues/venue';

type Answers = Record<string, { body: unknown }>;
const answers = (recorded as { answers: Answers }).answers;
const body = (kind: string) => answers[kind].body;

describe('Binance USD-M adapter on recorded answers', () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let base: string;
  const asked: string[] = [];
  const rejected: string[] = [];
  let now = 1786824000000; // after the recorded klines' last close, 2026-08-15

  const routes: Record<string, () => unknown> = {
    '/fapi/v1/klines': () => body('klines'),
    '/fapi/v1/fundingRate': () => body('fundingRate'),
    '/fapi/v1/fundingInfo': () => body('fundingInfo'),
    '/fapi/v1/exchangeInfo': () => body('exchangeInfo'),
    '/fapi/v1/premiumIndex': () => body('premiumIndex'),
    '/fapi/v1/openInterest': () => body('openInterest'),
    '/fapi/v1/ticker/bookTicker': () => body('bookTicker'),
    '/fapi/v1/premiumIndexKlines': () => body('premiumIndexKlines'),
    '/futures/data/openInterestHist': () => body('openInterestHist'),
  };

  const venue = () =>
    new BinancePerpVenue({
      apiUrl: base,
      wsUrl: base.replace('http', 'ws'),
      weightPerMinute: 2400,
      symbolMap: {},
      socketTimeoutMs: 5_000,
      observer: { request() {}, weight() {}, reconnect() {}, rejected: (_v, kind, reason) => rejected.push(`${kind}: ${reason}`) },
      now: () => now,
    });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      asked.push(`${url.pathname}?${url.searchParams}`);
      const route = routes[url.pathname] as (() => unknown) | undefined;
      res.writeHead(route ? 200 : 404, { 'content-type': 'application/json', 'x-mbx-used-weight-1m': '10' }).end(route ? JSON.stringify(route()) : '');
    });
    wss = new WebSocketServer({ server });
    // The recorded stream messages, as the combined stream wraps them.
    wss.on('connection', (ws) => {
      ws.send(JSON.stringify(body('ws_kline')));
      ws.send(JSON.stringify(body('ws_markPrice')));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    wss.close();
    await new Promise((r) => server.close(r));
  });

  it('reads recorded klines: integer times, string values, the trade flow; only candles closed by now', async () => {
    const page = await venue().candles('BTCUSDT', '1h', 1786816800000, 1786820400000);
    expect(page.rows).toEqual([
      { time: 1786816800000, open: '63043.4', high: '63083', low: '63011.6', close: '63026.3', volume: '1116.068', quoteVolume: '70342488.017', trades: '16911', takerBuyVolume: '460.737', takerBuyQuoteVolume: '29038581.7224' },
      { time: 1786820400000, open: '63026.3', high: '63029.7', low: '63026.2', close: '63029.7', volume: '70.64', quoteVolume: '4452283.7333', trades: '1524', takerBuyVolume: '48.581', takerBuyQuoteVolume: '3061975.1096' },
    ]);
    now = 1786820400000 + 1_800_000; // the second one still open: dropped, as the venue sends it
    expect((await venue().candles('BTCUSDT', '1h', 1786816800000, 1786820400000)).rows.map((r) => r.time)).toEqual([1786816800000]);
    now = 1786824000000;
    expect(asked.at(-1)).toContain('limit=1500');
  });

  it('reads recorded funding rows (fundingTime 2 ms after the hour, rateType) as their hours', async () => {
    expect(await venue().funding('BTCUSDT', 1786780800000)).toEqual([
      { time: 1786780800000, rate: '0.00006523' },
      { time: 1786809600000, rate: '0.00005311' },
    ]);
  });

  it('takes a symbol fundingInfo does not list as 8-hourly, and a listed one at its interval', async () => {
    const v = venue();
    expect(await v.fundingInterval('BTCUSDT')).toBe(8);
    expect(await v.fundingInterval('BLZUSDT')).toBe(8);
    routes['/fapi/v1/fundingInfo'] = () => [{ ...(body('fundingInfo') as object[])[0], symbol: 'BTCUSDT', fundingIntervalHours: 4 }];
    expect(await venue().fundingInterval('BTCUSDT')).toBe(4);
    routes['/fapi/v1/fundingInfo'] = () => body('fundingInfo');
  });

  it('lists only perpetuals trading in the recorded exchangeInfo (not quarterlies nor pending ones)', async () => {
    expect([...(await venue().listed())].sort()).toEqual(['BTCUSDT', 'ETHUSDT', 'SUSHIUSDT']);
  });

  it('makes a context of recorded premiumIndex and openInterest: mark, index as oracle, estimated rate, open interest', async () => {
    const [u] = await venue().contexts(['BTCUSDT']);
    expect(u.instrument).toBe('BTCUSDT');
    expect(u.context).toMatchObject({ markPrice: '63086.4', oraclePrice: '63112.9123913', fundingRate: '0.00009145', openInterest: '84617.188' });
  });

  it('follows the recorded streams: a closed kline is a candle, a markPriceUpdate a context once open interest is known', async () => {
    const closed: ClosedCandle[] = [];
    const contexts: ContextUpdate[] = [];
    const v = venue();
    const stream = v.follow(['SUSHIUSDT', 'BTCUSDT'], { onConnected() {}, onDisconnected() {}, onClosed: (c) => closed.push(c), onContext: (u) => contexts.push(u) });
    for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    stream.close();
    v.close();
    expect(closed).toEqual([
      {
        instrument: 'SUSHIUSDT',
        candle: { time: 1626992700000, open: '7.608', high: '7.618', low: '7.607', close: '7.617', volume: '3005', quoteVolume: '22875.859', trades: '113', takerBuyVolume: '1900', takerBuyQuoteVolume: '14464.696' },
      },
    ]);
    // No open interest yet (the minute's poll has not run): the mark alone makes no context.
    expect(contexts).toEqual([]);
  });

  it('restates a mapped contract of 1,000 units per unit, exactly: prices divided, volumes and open interest multiplied', async () => {
    const v = new BinancePerpVenue({
      apiUrl: base,
      wsUrl: base.replace('http', 'ws'),
      weightPerMinute: 2400,
      symbolMap: { 'PEPE-USDT': { 'binance-perp': { instrument: 'BTCUSDT', scale: 1000 } } },
      socketTimeoutMs: 5_000,
      observer: { request() {}, weight() {}, reconnect() {}, rejected: (_v, kind, reason) => rejected.push(`${kind}: ${reason}`) },
      now: () => now,
    });
    expect(v.instrument('PEPE-USDT')).toBe('BTCUSDT');
    const [first] = (await v.candles('BTCUSDT', '1h', 1786816800000, 1786820400000)).rows;
    expect(first).toMatchObject({ open: '63.0434', high: '63.083', low: '63.0116', close: '63.0263', volume: '1116068', takerBuyVolume: '460737', quoteVolume: '70342488.017' });
    const [u] = await v.contexts(['BTCUSDT']);
    expect(u.context).toMatchObject({ markPrice: '63.0864', openInterest: '84617188', fundingRate: '0.00009145' });
  });

  it('backfills a past minute from the mark, index and premium klines: their closes, open interest and the predicted rate unknown', async () => {
    // The three recorded answers are of different minutes (and the index one of 5m klines): each
    // served as recorded but moved to the mark kline's minute, so that they meet.
    const minute = 1591256400000;
    const at = (kind: string) => (body(kind) as unknown[][]).slice(0, 1).map((row) => [minute, ...row.slice(1)]);
    routes['/fapi/v1/markPriceKlines'] = () => body('markPriceKlines');
    routes['/fapi/v1/indexPriceKlines'] = () => at('indexPriceKlines');
    routes['/fapi/v1/premiumIndexKlines'] = () => at('premiumIndexKlines');
    try {
      now = minute + 120_000;
      const rows = await venue().pastContext('BTCUSDT', minute, minute + 60_000);
      expect(rows).toEqual([
        {
          time: minute,
          markPrice: '9651.552',
          oraclePrice: '57284.927352',
          venuePremium: '-0.00043659',
          openInterestOpen: null,
          openInterestHigh: null,
          openInterestLow: null,
          openInterest: null,
          midPrice: null,
          predictedFundingRate: null,
        },
      ]);
      // The index is asked by pair, every kind by the minute.
      expect(asked.filter((q) => q.includes('PriceKlines')).map((q) => q.replace(/startTime=\d+&endTime=\d+/, 'range'))).toEqual([
        '/fapi/v1/markPriceKlines?symbol=BTCUSDT&interval=1m&range&limit=1500',
        '/fapi/v1/indexPriceKlines?pair=BTCUSDT&interval=1m&range&limit=1500',
      ]);
      // A minute not closed yet is not backfilled.
      now = minute + 59_000;
      expect(await venue().pastContext('BTCUSDT', minute, minute)).toEqual([]);
    } finally {
      routes['/fapi/v1/premiumIndexKlines'] = () => body('premiumIndexKlines');
      now = 1786824000000;
    }
  });

  it('reads recorded openInterestHist (integer timestamp, the circulating supply beside) as the close of the bucket before its stamp', async () => {
    const points = await venue().openInterestHistory('BTCUSDT', 1786816800000 - 300_000, 1786820400000 - 300_000);
    expect(points).toEqual([
      { time: 1786816500000, openInterest: '111856.664' },
      { time: 1786820100000, openInterest: '111688.14' },
    ]);
    expect(asked.filter((q) => q.startsWith('/futures/data/openInterestHist'))).toEqual([
      '/futures/data/openInterestHist?symbol=BTCUSDT&period=5m&startTime=1786816800000&endTime=1786820400000&limit=500',
    ]);
  });

  it('takes the mid of the best bid and ask exactly', () => {
    expect(midOf('4.00000000', '4.00000200')).toBe('4.000001');
    expect(midOf('63026.1', '63026.2')).toBe('63026.15');
  });

  it('parsed every recorded answer it was given without a rejection', () => {
    expect(rejected).toEqual([]);
  });
});
