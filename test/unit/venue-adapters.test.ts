/**
 * The two adapters against payloads copied from the venues' own documentation
 * (test/fixtures/venues/), served as they are by a bare node:http server: the documented
 * field order, string decimals and millisecond times parse to exact rows; a documented error
 * becomes the venue's reason; a documented socket message is read (and an impossible one
 * rejected, counted, not delivered).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import { BinanceVenue } from '../../src/venues/binance.venue';
import { HyperliquidVenue } from '../../src/venues/hyperliquid.venue';
import { VenueRefusedError, type ClosedCandle, type VenueObserver } from '../../src/venues/venue';
import { pollUntil } from '../helpers/wait';

const fixture = (name: string) => JSON.parse(readFileSync(path.join(__dirname, '../fixtures/venues', `${name}.json`), 'utf8')).payload;

describe('venue adapters on documented payloads', () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let base: string;
  let wsMessage: unknown = null;
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
          return send(200, fixture(type === 'candleSnapshot' ? 'hyperliquid-candle-snapshot' : 'hyperliquid-funding-history'));
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
    expect(page).toEqual({ rows: [{ time: 1681923600000, open: '29295', high: '29309', low: '29250', close: '29258', volume: '0.98639' }], rejectedTimes: [] });
    // 1683849600076: the venue's own time, 76 ms after the hour.
    expect(await hl.funding('ETH', 1683849600000)).toEqual([{ time: 1683849600000, rate: '-0.00022196' }]);
    expect(hl.instrument('BTC-USDT')).toBe('BTC');
    hl.close();
  });

  it('when Binance answers the documented klines, then the row is exact; its documented error becomes the refusal reason', async () => {
    const bn = new BinanceVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const page = await bn.candles('BTCUSDT', '1d', 1499040000000, 1499040000000);
    expect(page.rows).toEqual([{ time: 1499040000000, open: '0.0163479', high: '0.8', low: '0.015758', close: '0.015771', volume: '148976.11427815' }]);
    const err = await bn.candles('NOPE', '1m', 0, 60_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueRefusedError);
    expect((err as Error).message).toBe('binance refused: HTTP 400 -1121 Invalid symbol.');
    expect(bn.instrument('BTC-USDT')).toBe('BTCUSDT');
    bn.close();
  });

  it("when Hyperliquid's documented candle message arrives, then the candle is closed once a later one comes", async () => {
    const hl = new HyperliquidVenue({ ...common, apiUrl: `http://${base}`, wsUrl: `ws://${base}` });
    const closed: ClosedCandle[] = [];
    const doc = fixture('hyperliquid-ws-candle') as { channel: string; data: Record<string, unknown> };
    const as1m = { ...doc.data, i: '1m', t: 1681923600000, T: 1681923659999 };
    wsMessage = [{ ...doc, data: as1m }, { ...doc, data: { ...as1m, t: 1681923660000, T: 1681923719999 } }];
    // The test server answers each subscribe with one message; send the two in turn.
    wss.removeAllListeners('connection');
    wss.on('connection', (ws) => ws.once('message', () => (wsMessage as unknown[]).forEach((m) => ws.send(JSON.stringify(m)))));
    const stream = hl.follow(['BTC'], { onConnected() {}, onDisconnected() {}, onClosed: (c) => void closed.push(c) });
    await pollUntil(async () => closed.length, (n) => n > 0, { withinMs: 5_000 });
    stream.close();
    hl.close();
    expect(closed).toEqual([{ instrument: 'BTC', candle: { time: 1681923600000, open: '29295', high: '29309', low: '29250', close: '29258', volume: '0.98639' } }]);
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
});
