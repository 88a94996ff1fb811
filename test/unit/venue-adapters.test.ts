/**
 * The two adapters against payloads copied from the venues' own documentation and an SDK's
 * recorded answers (test/fixtures/venues/), served as they are by a bare node:http server: the
 * documented field order, string decimals and millisecond times parse to exact rows, trade flow
 * and contexts included; recorded funding times belong to hour floor(t + 5 s); a documented
 * error becomes the venue's reason; a documented socket message is read (and an impossible one
 * rejected, counted, not delivered).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import { BinanceVenue } from '../../src/venues/binance.venue';
import { HyperliquidVenue } from '../../src/venues/hyperliquid.venue';
import { VenueRefusedError, type ClosedCandle, type ContextUpdate, type VenueObserver } from '../../src/venues/venue';
import { pollUntil } from '../helpers/wait';

const fixture = (name: string) => JSON.parse(readFileSync(path.join(__dirname, '../fixtures/venues', `${name}.json`), 'utf8')).payload;

describe('venue adapters on documented payloads', () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let base: string;
  let wsMessage: unknown = null;
  /** What POST /info answers fundingHistory with (the documented answer unless a test sets it). */
  let fundingAnswer: unknown = null;
  const rejected: string[] = [];
  const observer: VenueObserver = { request() {}, weight() {}, reconnect() {}, rejected: (_v, kind) => void rejected.push(kind) };
  const common = { weightPerMinute: 1_000, symbolMap: {}, socketTimeoutMs: 5_000, observer, now: Date.now };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const send = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
        if (req.url === '/info') {
          const type = JSON.parse(body).type;
          if (type === 'fundingHistory') return send(200, fundingAnswer ?? fixture('hyperliquid-funding-history'));
          return send(200, fixture(type === 'candleSnapshot' ? 'hyperliquid-candle-snapshot' : 'hyperliquid-meta-and-asset-ctxs'));
        }
        if (req.url?.startsWith('/api/v3/klines?symbol=BTCUSDT')) return send(200, fixture('binance-klines'));
        return send(400, fixture('binance-error'));
      });
    });
    wss = new WebSocketServer({ server });
    wss.on('connection', (ws) => ws.on('message', () => wsMessage !== null && ws.send(JSON.stringify(wsMessage))));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    wss.close();
    await new Promise((r) => server.close(r));
  });

  it('when Hyperliquid answers the documented candleSnapshot and fundingHistory, then the rows are exact and aligned', async () => {
    const hl = new HyperliquidVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const page = await hl.candles('BTC', '15m', 1681923600000, 1681923600000);
    expect(page).toEqual({ rows: [{ time: 1681923600000, open: '29295', high: '29309', low: '29250', close: '29258', volume: '0.98639', trades: '189' }], rejectedTimes: [] });
    // 1683849600076: the venue's own time, 76 ms after the hour.
    expect(await hl.funding('ETH', 1683849600000)).toEqual([{ time: 1683849600000, rate: '-0.00022196' }]);
    expect(hl.instrument('BTC-USDT')).toBe('BTC');
    hl.close();
  });

  it('when Binance answers the documented klines, then the row is exact; its documented error becomes the refusal reason', async () => {
    const bn = new BinanceVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const page = await bn.candles('BTCUSDT', '1d', 1499040000000, 1499040000000);
    expect(page.rows).toEqual([
      {
        time: 1499040000000,
        open: '0.0163479',
        high: '0.8',
        low: '0.015758',
        close: '0.015771',
        volume: '148976.11427815',
        quoteVolume: '2434.19055334',
        trades: '308',
        takerBuyVolume: '1756.87402397',
        takerBuyQuoteVolume: '28.46694368',
      },
    ]);
    const err = await bn.candles('NOPE', '1m', 0, 60_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueRefusedError);
    expect((err as Error).message).toBe('binance refused: HTTP 400 -1121 Invalid symbol.');
    expect(bn.instrument('BTC-USDT')).toBe('BTCUSDT');
    bn.close();
  });

  /** Hyperliquid's documented candle message as 1m minute 1681923600000 (`data` overrides), and the minutes closed when `messages` are sent after the subscribe. */
  const hyperliquidMinute = (data: Record<string, unknown> = {}) => {
    const doc = fixture('hyperliquid-ws-candle') as { channel: string; data: Record<string, unknown> };
    return { ...doc, data: { ...doc.data, i: '1m', t: 1681923600000, T: 1681923659999, ...data } };
  };
  async function closedByHyperliquid(messages: unknown[]): Promise<ClosedCandle[]> {
    const hl = new HyperliquidVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const closed: ClosedCandle[] = [];
    wsMessage = messages;
    // The test server answers each subscribe with one message; send them in turn.
    wss.removeAllListeners('connection');
    wss.on('connection', (ws) => ws.once('message', () => (wsMessage as unknown[]).forEach((m) => ws.send(JSON.stringify(m)))));
    const stream = hl.follow(['BTC'], { onConnected() {}, onDisconnected() {}, onClosed: (c) => void closed.push(c) });
    await pollUntil(async () => closed.length, (n) => n > 0, { withinMs: 5_000 });
    stream.close();
    hl.close();
    return closed;
  }
  const firstMinuteClosed = [{ instrument: 'BTC', candle: { time: 1681923600000, open: '29295', high: '29309', low: '29250', close: '29258', volume: '0.98639', trades: '189' } }];
  const nextMinute = { t: 1681923660000, T: 1681923719999 };

  it("when Hyperliquid's documented candle message arrives, then the candle is closed once a later one comes", async () => {
    expect(await closedByHyperliquid([hyperliquidMinute(), hyperliquidMinute(nextMinute)])).toEqual(firstMinuteClosed);
  });

  it('when Hyperliquid re-sends an older state of a minute (fewer trades) before the next minute, then the minute closes with its later values', async () => {
    const stale = hyperliquidMinute({ c: 29280, v: '0.5', n: 100 });
    expect(await closedByHyperliquid([hyperliquidMinute(), stale, hyperliquidMinute(nextMinute)])).toEqual(firstMinuteClosed);
  });

  it("when Binance's documented kline event closes with a low above its open, then it is rejected and counted, not delivered", async () => {
    const bn = new BinanceVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const doc = fixture('binance-ws-kline') as { data: { s: string; k: Record<string, unknown> } };
    wss.removeAllListeners('connection');
    wss.on('connection', (ws) => ws.send(JSON.stringify({ ...doc, data: { ...doc.data, k: { ...doc.data.k, x: true } } })));
    const closed: ClosedCandle[] = [];
    rejected.length = 0;
    const stream = bn.follow(['BNBBTC'], { onConnected() {}, onDisconnected() {}, onClosed: (c) => void closed.push(c) });
    await pollUntil(async () => rejected.length, (n) => n > 0, { withinMs: 5_000 });
    stream.close();
    bn.close();
    expect(rejected).toEqual(['values']);
    expect(closed).toEqual([]);
  });

  it("when Binance's documented kline event closes with consistent prices, then the candle carries its trade flow", async () => {
    const bn = new BinanceVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const doc = fixture('binance-ws-kline') as { data: { s: string; k: Record<string, unknown> } };
    wss.removeAllListeners('connection');
    wss.on('connection', (ws) => ws.send(JSON.stringify({ ...doc, data: { ...doc.data, k: { ...doc.data.k, l: '0.0005', x: true } } })));
    const closed: ClosedCandle[] = [];
    const stream = bn.follow(['BNBBTC'], { onConnected() {}, onDisconnected() {}, onClosed: (c) => void closed.push(c) });
    await pollUntil(async () => closed.length, (n) => n > 0, { withinMs: 5_000 });
    stream.close();
    bn.close();
    expect(closed[0].candle).toEqual({ time: 1672515780000, open: '0.001', high: '0.0025', low: '0.0005', close: '0.002', volume: '1000', quoteVolume: '1', trades: '100', takerBuyVolume: '500', takerBuyQuoteVolume: '0.5' });
  });

  it("when Hyperliquid's recorded fundingHistory has a settlement 23 min 53 s and one 5.457 s late, then each is its hour's rate; the absent hour stays absent", async () => {
    const hl = new HyperliquidVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    fundingAnswer = fixture('hyperliquid-funding-recorded');
    const rows = await hl.funding('BTC', Date.UTC(2023, 4, 23));
    const H = 3_600_000;
    expect(rows.map((r) => new Date(r.time).toISOString().slice(0, 16))).toEqual([
      '2023-05-23T00:00', '2023-05-23T08:00', '2023-05-23T16:00', '2023-07-02T19:00', '2023-07-02T21:00', '2023-07-12T17:00', '2023-07-12T18:00', '2023-07-12T19:00',
    ]);
    expect(rows[1]).toEqual({ time: Date.UTC(2023, 4, 23, 8), rate: '-0.00017541' });
    expect(rows[6]).toEqual({ time: Date.UTC(2023, 6, 12, 18), rate: '0.00004173' });
    expect(rows.every((r) => r.time % H === 0)).toBe(true);

    // A second settlement in an hour: the one nearest the hour is kept, the other counted.
    rejected.length = 0;
    const recorded = fixture('hyperliquid-funding-recorded') as Array<{ time: number }>;
    fundingAnswer = [...recorded, { coin: 'BTC', fundingRate: '0.00009999', premium: '0.0001', time: Date.UTC(2023, 6, 12, 18, 0, 0, 300) }];
    const twice = await hl.funding('BTC', Date.UTC(2023, 4, 23));
    expect(twice.find((r) => r.time === Date.UTC(2023, 6, 12, 18))).toEqual({ time: Date.UTC(2023, 6, 12, 18), rate: '0.00009999' });
    expect(twice).toHaveLength(8);
    expect(rejected).toEqual(['duplicate']);
    fundingAnswer = null;
    hl.close();
  });

  it('when Hyperliquid answers the documented metaAndAssetCtxs, then the asked coins get their contexts by universe index', async () => {
    const hl = new HyperliquidVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    expect(await hl.contexts(['HPOS', 'BTC', 'NOPE'])).toEqual([
      { instrument: 'BTC', context: { openInterest: '688.11', markPrice: '14.3161', oraclePrice: '14.32', midPrice: '14.314', fundingRate: '0.0000125', premium: '0.00031774' } },
      { instrument: 'HPOS', context: { openInterest: '2912.05', markPrice: '8.4542', oraclePrice: '8.4585', midPrice: '8.4557', fundingRate: '0.0000125', premium: '0.00033694' } },
    ]);
    hl.close();
  });

  it("when Hyperliquid's activeAssetCtx messages arrive, then contexts are delivered exact, an empty book's as nulls, a negative open interest rejected", async () => {
    const hl = new HyperliquidVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const doc = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/venues/hyperliquid-ws-active-asset-ctx.json'), 'utf8'));
    const negative = { ...doc.payload, data: { coin: 'BTC', ctx: { ...doc.payload.data.ctx, openInterest: '-1' } } };
    const subscriptions: unknown[] = [];
    wss.removeAllListeners('connection');
    wss.on('connection', (ws) =>
      ws.on('message', (m) => {
        subscriptions.push(JSON.parse(String(m)).subscription);
        if (subscriptions.length === 2) for (const msg of [doc.payload, negative, doc.empty_book]) ws.send(JSON.stringify(msg));
      }),
    );
    const got: ContextUpdate[] = [];
    rejected.length = 0;
    const stream = hl.follow(['BTC'], { onConnected() {}, onDisconnected() {}, onClosed() {}, onContext: (u) => void got.push(u) });
    await pollUntil(async () => got.length, (n) => n >= 2, { withinMs: 5_000 });
    stream.close();
    hl.close();
    expect(subscriptions).toEqual([{ type: 'candle', coin: 'BTC', interval: '1m' }, { type: 'activeAssetCtx', coin: 'BTC' }]);
    expect(got).toEqual([
      { instrument: 'BTC', context: { openInterest: '688.11', markPrice: '14.3161', oraclePrice: '14.32', midPrice: '14.314', fundingRate: '0.0000125', premium: '0.00031774' } },
      { instrument: 'BTC', context: { openInterest: '688.11', markPrice: '14.3161', oraclePrice: '14.32', midPrice: null, fundingRate: '0.0000125', premium: null } },
    ]);
    expect(rejected).toEqual(['values']);
  });
});
