/**
 * The local venue simulator (tools/venue-sim): its REST and WebSocket formats against
 * the venues' documented examples (test/fixtures/venues), its limits and its fault switches.
 */
import WebSocket from 'ws';
import { VenueSimulator, type SimOptions } from '../../tools/venue-sim';
import { pollUntil } from '../helpers/wait';
import binanceError from '../fixtures/venues/binance-error.json';
import binanceKlines from '../fixtures/venues/binance-klines.json';
import binanceWsKline from '../fixtures/venues/binance-ws-kline.json';
import hlCandles from '../fixtures/venues/hyperliquid-candle-snapshot.json';
import hlFunding from '../fixtures/venues/hyperliquid-funding-history.json';
import hlWsCandle from '../fixtures/venues/hyperliquid-ws-candle.json';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** A clock the test moves: real time plus an offset. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };
/** Sets the clock `ms` before the next minute boundary. */
const closeToMinuteEnd = (ms: number) => {
  clock.offset = 0;
  clock.offset = MINUTE - ms - (clock.now() % MINUTE);
};
const minuteOf = (t: number) => Math.floor(t / MINUTE) * MINUTE;

let sim: VenueSimulator;
const start = async (opts: SimOptions = {}) => {
  sim = await VenueSimulator.start({ now: clock.now, pushIntervalMs: 100, ...opts });
  return sim;
};
afterEach(async () => {
  await sim?.close();
  clock.offset = 0;
});

const info = (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${sim.env.HYPERLIQUID_API_URL}/info`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
const candles = (req: Record<string, unknown>) => info({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', ...req } });
const klines = (query: Record<string, string | number>) => {
  const q = new URLSearchParams({ symbol: 'BTCUSDT', interval: '1m' });
  for (const [k, v] of Object.entries(query)) q.set(k, String(v));
  return fetch(`${sim.env.BINANCE_API_URL}/api/v3/klines?${q}`);
};
const jsonOf = async (res: Response | Promise<Response>): Promise<Json> => (await res).json();

/** A WebSocket client keeping every JSON message it receives. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  const messages: Json[] = [];
  let pings = 0;
  ws.on('message', (m) => messages.push(JSON.parse(String(m))));
  ws.on('ping', () => (pings += 1));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const waitFor = async (pred: (m: Json) => boolean, withinMs = 3_000) => {
    const found = await pollUntil(async () => messages.find(pred), (m) => m !== undefined, { withinMs, everyMs: 10 });
    if (found === undefined) throw new Error(`no such message in ${JSON.stringify(messages).slice(0, 500)}`);
    return found;
  };
  return { ws, messages, waitFor, pings: () => pings };
}

const keysOf = (o: object) => Object.keys(o).sort();
const decimal = /^\d+\.\d+$/;

describe('Hyperliquid REST', () => {
  it('candleSnapshot rows have the documented fields, string decimals, T = t + period - 1, and chain open to previous close', async () => {
    await start();
    const to = minuteOf(clock.now()) - 10 * MINUTE;
    const res = await candles({ startTime: to - 59 * MINUTE, endTime: to });
    const rows: Json[] = await jsonOf(res);
    expect(res.status).toBe(200);
    expect(rows).toHaveLength(60);
    expect(keysOf(rows[0])).toEqual(keysOf(hlCandles.payload[0]));
    expect(Object.keys(rows[0])).toEqual(Object.keys(hlWsCandle.payload.data));
    rows.forEach((r, k) => {
      expect(r).toMatchObject({ s: 'BTC', i: '1m', t: to - (59 - k) * MINUTE, T: to - (59 - k) * MINUTE + MINUTE - 1 });
      for (const f of ['o', 'c', 'h', 'l', 'v']) expect(r[f]).toMatch(decimal);
      expect(Number(r.h)).toBeGreaterThanOrEqual(Math.max(Number(r.o), Number(r.c)));
      expect(Number(r.l)).toBeLessThanOrEqual(Math.min(Number(r.o), Number(r.c)));
      if (k > 0) expect(r.o).toBe(rows[k - 1].c);
      expect(sim.candle('hyperliquid', 'BTC', '1m', r.t)).toEqual({ open: r.o, high: r.h, low: r.l, close: r.c, volume: r.v });
    });
    expect(Number(rows[0].c)).toBeGreaterThan(30_000);
    expect(Number(rows[0].c)).toBeLessThan(120_000);
    const again = await candles({ startTime: to - 59 * MINUTE, endTime: to });
    expect(await again.text()).toBe(JSON.stringify(rows));
  });

  it('serves only the most recent 5,000 candles of an interval, the open one partial', async () => {
    await start();
    const rows: Json[] = await jsonOf(candles({ startTime: 0 }));
    expect(rows).toHaveLength(5_000);
    const open = minuteOf(clock.now());
    expect(rows[4_999].t).toBe(open);
    expect(rows[0].t).toBe(open - 4_999 * MINUTE);
    expect(sim.candle('hyperliquid', 'BTC', '1m', open - 5_000 * MINUTE)).toBeNull();
    expect(sim.candle('hyperliquid', 'BTC', '1m', open + MINUTE)).toBeNull();
    expect(sim.requests.at(-1)).toMatchObject({ venue: 'hyperliquid', kind: 'candleSnapshot', status: 200, weight: 20 + Math.floor(5_000 / 60) });
  });

  it('caps a response at 5,000 candles when the horizon is longer, the oldest first', async () => {
    await start({ hyperliquidCandleLimit: 8_000 });
    const from = minuteOf(clock.now()) - 7_000 * MINUTE;
    const rows: Json[] = await jsonOf(candles({ startTime: from }));
    expect(rows).toHaveLength(5_000);
    expect(rows[0].t).toBe(from);
  });

  it('fundingHistory: hourly rows a few ms after the hour, ascending, at most 500, published after the delay', async () => {
    await start();
    expect(hlFunding.payload[0].time % HOUR).toBeLessThan(100);
    const res = await info({ type: 'fundingHistory', coin: 'BTC', startTime: clock.now() - 30 * 24 * HOUR });
    const rows: Json[] = await jsonOf(res);
    expect(rows).toHaveLength(500);
    expect(Object.keys(rows[0])).toEqual(Object.keys(hlFunding.payload[0]));
    rows.forEach((r, k) => {
      expect(r.time % HOUR).toBeLessThan(100);
      expect(r.fundingRate).toMatch(/^-?\d+\.\d+$/);
      expect(sim.fundingRate('BTC', r.time - (r.time % HOUR))).toBe(r.fundingRate);
      if (k > 0) expect(r.time - (r.time % HOUR)).toBe(rows[k - 1].time - (rows[k - 1].time % HOUR) + HOUR);
    });
    expect(sim.requests.at(-1)).toMatchObject({ kind: 'fundingHistory', weight: 20 + 500 / 20 });

    const hour = Math.floor(clock.now() / HOUR) * HOUR;
    expect(sim.fundingRate('BTC', hour)).not.toBeNull();
    sim.setFundingDelay(HOUR);
    expect(sim.fundingRate('BTC', hour)).toBeNull();
    const latest: Json[] = await jsonOf(info({ type: 'fundingHistory', coin: 'BTC', startTime: hour - 2 * HOUR }));
    expect(latest.map((r) => r.time - (r.time % HOUR))).toEqual([hour - 2 * HOUR, hour - HOUR]);
  });

  it('charges weight per minute and answers 429 past the limit', async () => {
    await start({ hyperliquidWeightLimit: 100 });
    const to = clock.now() - HOUR;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await candles({ startTime: to - 10 * MINUTE, endTime: to })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(sim.weightUsed('hyperliquid')).toBe(100);
    expect(sim.requests.map((r) => r.weight)).toEqual([20, 20, 20, 20, 20, 0]);
    expect(sim.requests[0].params).toEqual({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: to - 10 * MINUTE, endTime: to } });
  });

  it('refuses what the venue refuses: not JSON (400), no JSON content type (415), not a known request (422); an unknown coin is []', async () => {
    await start();
    expect((await info('{')).status).toBe(400);
    expect((await info({ type: 'candleSnapshot' }, {})).status).toBe(415);
    expect((await info({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '7m', startTime: 0 } })).status).toBe(422);
    expect((await info({ type: 'nope' })).status).toBe(422);
    expect(await jsonOf(candles({ coin: 'NOPE', startTime: 0 }))).toEqual([]);
  });
});

describe('Binance REST', () => {
  it('klines rows are the documented 12-element arrays with 8-decimal strings, and cost weight 2 reported in X-MBX-USED-WEIGHT-1M', async () => {
    await start();
    const from = minuteOf(clock.now()) - 2 * HOUR;
    const res = await klines({ startTime: from, endTime: from + 9 * MINUTE });
    const rows: Json[] = await jsonOf(res);
    expect(res.headers.get('x-mbx-used-weight-1m')).toBe('2');
    expect(rows).toHaveLength(10);
    const types = (row: unknown[]) => row.map((v) => typeof v);
    rows.forEach((r, k) => {
      expect(types(r)).toEqual(types(binanceKlines.payload[0]));
      expect(r[0]).toBe(from + k * MINUTE);
      expect(r[6]).toBe(r[0] + MINUTE - 1);
      for (const i of [1, 2, 3, 4, 5, 7, 9, 10]) expect(r[i]).toMatch(/^\d+\.\d{8}$/);
      expect(sim.candle('binance', 'BTCUSDT', '1m', r[0])).toEqual({ open: r[1], high: r[2], low: r[3], close: r[4], volume: r[5] });
      if (k > 0) expect(r[1]).toBe(rows[k - 1][4]);
    });
    expect(sim.requests).toEqual([
      { venue: 'binance', kind: 'klines', status: 200, weight: 2, at: expect.any(Number), params: { symbol: 'BTCUSDT', interval: '1m', startTime: String(from), endTime: String(from + 9 * MINUTE) } },
    ]);
  });

  it('limit defaults to 500 and may not pass 1,000; without startTime the most recent klines come, the open one last', async () => {
    await start();
    const latest: Json[] = await jsonOf(klines({}));
    expect(latest).toHaveLength(500);
    expect(latest[499][0]).toBe(minuteOf(clock.now()));
    expect(await jsonOf(klines({ startTime: 0, limit: 1_000 }))).toHaveLength(1_000);
    const tooMany = await klines({ limit: 1_001 });
    expect(tooMany.status).toBe(400);
    expect((await jsonOf(tooMany)).code).toBe(-1130);
  });

  it('an unknown symbol is the documented -1121 error', async () => {
    await start();
    const res = await klines({ symbol: 'NOPEUSDT' });
    expect(res.status).toBe(400);
    expect(await jsonOf(res)).toEqual(binanceError.payload);
  });

  it('past the weight limit: 429 with Retry-After, then 418 (a ban) for a request sent before Retry-After ran out', async () => {
    await start({ binanceWeightLimit: 4 });
    const first = await klines({});
    await klines({});
    const limited = await klines({});
    const banned = await klines({});
    expect([first.status, limited.status, banned.status]).toEqual([200, 429, 418]);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-mbx-used-weight-1m')).toBe('4');
    expect((await jsonOf(limited)).code).toBe(-1003);
    expect(banned.headers.get('retry-after')).toBe('120');
    expect(sim.requests.map((r) => [r.status, r.weight])).toEqual([[200, 2], [200, 2], [429, 0], [418, 0]]);
  });

  it('failNext forces statuses; a forced 429 starts its Retry-After like a real one', async () => {
    await start();
    sim.failNext('binance', 1, 502);
    sim.failNext('binance', 1, 429, 1);
    expect((await klines({})).status).toBe(502);
    expect((await klines({})).headers.get('retry-after')).toBe('1');
    expect((await klines({})).status).toBe(418);
    sim.failNext('hyperliquid', 1, 500);
    expect((await candles({ startTime: 0 })).status).toBe(500);
    expect((await candles({ startTime: clock.now() - MINUTE })).status).toBe(200);
  });

  it('setLatency delays every answer of the venue', async () => {
    await start();
    sim.setLatency('binance', 200);
    const t0 = Date.now();
    await klines({ limit: 1 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('spot closes stay within 0.1% of the perpetual, ETH near 3,000', async () => {
    await start();
    const from = Math.floor(clock.now() / HOUR) * HOUR - 3 * 24 * HOUR;
    const spot: Json[] = await jsonOf(klines({ interval: '1h', startTime: from, limit: 72 }));
    const perp: Json[] = await jsonOf(candles({ interval: '1h', startTime: from, endTime: from + 71 * HOUR }));
    expect(perp).toHaveLength(72);
    spot.forEach((s, k) => expect(Math.abs(Number(s[4]) / Number(perp[k].c) - 1)).toBeLessThan(0.001));
    const eth = sim.candle('hyperliquid', 'ETH', '1d', Math.floor(clock.now() / 86_400_000) * 86_400_000 - 86_400_000);
    expect(Number(eth?.close)).toBeGreaterThan(1_500);
    expect(Number(eth?.close)).toBeLessThan(6_000);
  });
});

describe('fault switches on rows', () => {
  it('a gap: the venue has no candles there, on any interval', async () => {
    await start();
    const from = minuteOf(clock.now()) - 3 * HOUR;
    sim.addGap('binance', 'BTCUSDT', from + 10 * MINUTE, from + 20 * MINUTE);
    const rows: Json[] = await jsonOf(klines({ startTime: from, endTime: from + 29 * MINUTE }));
    expect(rows).toHaveLength(20);
    expect(rows.some((r) => r[0] >= from + 10 * MINUTE && r[0] < from + 20 * MINUTE)).toBe(false);
    expect(sim.candle('binance', 'BTCUSDT', '5m', from + 10 * MINUTE)).toBeNull();
    expect(sim.candle('hyperliquid', 'BTC', '1m', from + 10 * MINUTE)).not.toBeNull();
  });

  it('malformNext breaks the next rows, one kind after another', async () => {
    await start();
    sim.malformNext('binance', 6);
    const rows: Json[] = await jsonOf(klines({ startTime: minuteOf(clock.now()) - HOUR, limit: 7 }));
    expect(rows[0][1]).toBe('abc');
    expect(Number(rows[1][2])).toBeLessThan(Number(rows[1][3]));
    expect(rows[2][5]).toMatch(/^-/);
    expect(typeof rows[3][4]).toBe('number');
    expect(rows[4][0] % MINUTE).toBe(30_000);
    expect(rows[5]).toHaveLength(11);
    expect(rows[6][1]).toMatch(/^\d+\.\d{8}$/);
    sim.malformNext('hyperliquid', 1);
    const hl: Json[] = await jsonOf(candles({ startTime: minuteOf(clock.now()) - 2 * MINUTE }));
    expect([hl[0].o, hl[1].o]).toEqual(['abc', expect.stringMatching(decimal)]);
  });

  it('time jitter shifts the venue timestamps off the minute', async () => {
    await start();
    sim.setTimeJitter(3);
    const [row]: Json[] = await jsonOf(candles({ startTime: minuteOf(clock.now()) - 5 * MINUTE }));
    expect(row.t % MINUTE).toBe(3);
    expect(row.T % MINUTE).toBe(2);
  });
});

describe('Hyperliquid WebSocket', () => {
  it('acknowledges a candle subscription, pushes the open candle repeatedly, then its final values at the close; ping gets pong', async () => {
    closeToMinuteEnd(400);
    await start();
    const c = await connect(sim.env.HYPERLIQUID_WS_URL);
    const subscription = { type: 'candle', coin: 'BTC', interval: '1m' };
    c.ws.send(JSON.stringify({ method: 'subscribe', subscription }));
    expect(await c.waitFor(() => true)).toEqual({ channel: 'subscriptionResponse', data: { method: 'subscribe', subscription } });
    const open = minuteOf(clock.now());
    await c.waitFor((m) => m.channel === 'candle' && m.data.t === open + MINUTE);
    const pushes = c.messages.filter((m) => m.channel === 'candle' && m.data.t === open);
    expect(pushes.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(pushes[0].data)).toEqual(Object.keys(hlWsCandle.payload.data));
    const final = pushes.at(-1).data;
    expect(sim.candle('hyperliquid', 'BTC', '1m', open)).toEqual({ open: final.o, high: final.h, low: final.l, close: final.c, volume: final.v });
    c.ws.send(JSON.stringify({ method: 'ping' }));
    await c.waitFor((m) => m.channel === 'pong');
    c.ws.close();
  });

  it('with setResendUnclosed, re-sends the closed candle after its close with other values', async () => {
    closeToMinuteEnd(300);
    await start();
    sim.setResendUnclosed(true);
    const c = await connect(sim.env.HYPERLIQUID_WS_URL);
    c.ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'candle', coin: 'ETH', interval: '1m' } }));
    const open = minuteOf(clock.now());
    await c.waitFor((m) => m.channel === 'candle' && m.data.t === open + MINUTE);
    const old = c.messages.filter((m) => m.channel === 'candle' && m.data.t === open).map((m) => m.data);
    const final = sim.candle('hyperliquid', 'ETH', '1m', open);
    expect(old.at(-2).c).toBe(final?.close);
    expect(old.at(-1)).not.toEqual(old.at(-2));
    c.ws.close();
  });

  it('answers an info request posted on the socket as the REST endpoint would', async () => {
    await start();
    const c = await connect(sim.env.HYPERLIQUID_WS_URL);
    const payload = { type: 'candleSnapshot', req: { coin: 'BTC', interval: '1h', startTime: clock.now() - 5 * HOUR, endTime: clock.now() - 2 * HOUR } };
    c.ws.send(JSON.stringify({ method: 'post', id: 5, request: { type: 'info', payload } }));
    const reply = await c.waitFor((m) => m.channel === 'post');
    expect(reply.data.response).toEqual({ type: 'info', payload: { type: 'candleSnapshot', data: await jsonOf(info(payload)) } });
    c.ws.close();
  });

  it('silent: open but nothing at all, no pong to a ping message nor to a ping frame; drop: terminated', async () => {
    await start();
    const c = await connect(sim.env.HYPERLIQUID_WS_URL);
    sim.setSilent('hyperliquid', true);
    let pongs = 0;
    c.ws.on('pong', () => (pongs += 1));
    c.ws.send(JSON.stringify({ method: 'ping' }));
    c.ws.ping();
    c.ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'candle', coin: 'BTC', interval: '1m' } }));
    await new Promise((r) => setTimeout(r, 300));
    expect(c.messages).toEqual([]);
    expect(pongs).toBe(0);
    sim.setSilent('hyperliquid', false);
    c.ws.ping();
    await c.waitFor((m) => m.channel === 'candle');
    await pollUntil(async () => pongs, (n) => n > 0, { withinMs: 2_000, everyMs: 10 });
    expect(sim.sockets('hyperliquid')).toEqual({ open: 1, accepted: 1 });

    const closed = new Promise((resolve) => c.ws.once('close', resolve));
    sim.dropSockets('hyperliquid');
    await closed;
    expect(sim.sockets('hyperliquid')).toEqual({ open: 0, accepted: 1 });
  });
});

describe('Binance WebSocket', () => {
  it('combined streams: x:false updates of the open kline, exactly one x:true per kline with its final values', async () => {
    closeToMinuteEnd(300);
    await start({ pingIntervalMs: 50 });
    const c = await connect(`${sim.env.BINANCE_WS_URL}/stream?streams=btcusdt@kline_1m/ethusdt@kline_1m`);
    const first = minuteOf(clock.now());
    const closedOf = (symbol: string, t: number) => (m: Json) => m.data.s === symbol && m.data.k.t === t && m.data.k.x;
    await c.waitFor(closedOf('BTCUSDT', first));
    clock.offset += MINUTE;
    await c.waitFor(closedOf('BTCUSDT', first + MINUTE));
    await c.waitFor(closedOf('ETHUSDT', first + MINUTE));

    const btc = c.messages.filter((m) => m.stream === 'btcusdt@kline_1m');
    expect(keysOf(btc[0])).toEqual(keysOf(binanceWsKline.payload));
    expect(Object.keys(btc[0].data)).toEqual(Object.keys(binanceWsKline.payload.data));
    expect(Object.keys(btc[0].data.k)).toEqual(Object.keys(binanceWsKline.payload.data.k));
    for (const t of [first, first + MINUTE]) {
      const closes = btc.filter((m) => m.data.k.t === t && m.data.k.x);
      expect(closes).toHaveLength(1);
      const k = closes[0].data.k;
      expect(closes[0].data.E).toBeGreaterThan(k.T);
      const [row]: Json[] = await jsonOf(klines({ startTime: t, limit: 1 }));
      expect([k.o, k.h, k.l, k.c, k.v, k.n, k.q]).toEqual([row[1], row[2], row[3], row[4], row[5], row[8], row[7]]);
      expect(btc.filter((m) => m.data.k.t === t && !m.data.k.x).length).toBeGreaterThanOrEqual(1);
    }
    expect(c.pings()).toBeGreaterThan(0);
    c.ws.close();
  });

  it('answers SUBSCRIBE and LIST_SUBSCRIPTIONS on a raw stream, whose events come unwrapped', async () => {
    await start();
    const c = await connect(`${sim.env.BINANCE_WS_URL}/ws`);
    c.ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['ethusdt@kline_5m'], id: 7 }));
    expect(await c.waitFor((m) => m.id === 7)).toEqual({ result: null, id: 7 });
    const event = await c.waitFor((m) => m.e === 'kline');
    expect(event).toMatchObject({ s: 'ETHUSDT', k: { i: '5m', x: false } });
    c.ws.send(JSON.stringify({ method: 'LIST_SUBSCRIPTIONS', id: 8 }));
    expect(await c.waitFor((m) => m.id === 8)).toEqual({ result: ['ethusdt@kline_5m'], id: 8 });
    c.ws.close();
  });

  it('with setResendUnclosed, sends the closed kline again as x:false after its x:true', async () => {
    closeToMinuteEnd(300);
    await start();
    sim.setResendUnclosed(true);
    const c = await connect(`${sim.env.BINANCE_WS_URL}/stream?streams=btcusdt@kline_1m`);
    const first = minuteOf(clock.now());
    await c.waitFor((m) => m.data.k.t === first + MINUTE);
    const old = c.messages.filter((m) => m.data.k.t === first).map((m) => m.data.k);
    expect(old.filter((k) => k.x)).toHaveLength(1);
    expect(old.at(-2).x).toBe(true);
    expect(old.at(-1)).toMatchObject({ x: false });
    expect(old.at(-1).c).not.toBe(old.at(-2).c);
    c.ws.close();
  });
});
