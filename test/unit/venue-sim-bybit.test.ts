/**
 * The venue simulator's Bybit (tools/venue-sim): v5 REST in the recorded formats (the envelope,
 * newest-first lists, strings), its paging quirks (kline and funding limits taking the newest,
 * funding's startTime only with endTime, the open-interest cursor), funding intervals of its own,
 * its limits and forced failures, and the public linear stream: acks and pongs, tickers snapshot
 * then deltas of changed fields, the closing kline frame with the next candle.
 */
import WebSocket from 'ws';
import { VenueSimulator, type SimOptions } from '../../tools/venue-sim';
import { pollUntil } from '../helpers/wait';
import bybitRecorded from '../fixtures/venues/bybit-perp-recorded.json';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const recorded = bybitRecorded.answers;
/** A frozen moment for REST answers that must equal the model exactly: a Wednesday, 42.5 s into a minute. */
const T = Date.UTC(2026, 10, 18, 13, 21, 42, 500);
const minuteOf = (t: number) => Math.floor(t / MINUTE) * MINUTE;
/** Bybit's rate text: up to 8 decimals, no trailing zero. */
const RATE = /^-?(0|[1-9]\d*)(\.\d{0,7}[1-9])?$/;

/** A clock the test moves: real time plus an offset. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };

let sim: VenueSimulator;
const start = async (opts: SimOptions = {}) => {
  sim = await VenueSimulator.start({ now: () => T, ...opts });
  return sim;
};
afterEach(async () => {
  await sim?.close();
  clock.offset = 0;
});

async function get(route: string, query: Record<string, string | number> = {}) {
  const q = new URLSearchParams({ category: 'linear', ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) });
  const res = await fetch(`${sim.env.BYBIT_API_URL}/v5/market/${route}?${q}`);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text.startsWith('{') ? (JSON.parse(text) as Json) : null };
}
const list = async (route: string, query: Record<string, string | number> = {}): Promise<Json[]> => {
  const { body } = await get(route, query);
  expect(body).toMatchObject({ retCode: 0, retMsg: 'OK', retExtInfo: {} });
  return body.result.list;
};

/** A WebSocket client keeping every JSON message it receives, and the pings it got. */
async function connect() {
  const ws = new WebSocket(sim.env.BYBIT_WS_URL);
  const messages: Json[] = [];
  let pings = 0;
  ws.on('message', (m) => messages.push(JSON.parse(String(m))));
  ws.on('ping', () => (pings += 1));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const waitFor = async (pred: (m: Json) => boolean, withinMs = 5_000) => {
    const found = await pollUntil(async () => messages.find(pred), (m) => m !== undefined, { withinMs, everyMs: 10 });
    if (found === undefined) throw new Error(`no such message in ${JSON.stringify(messages).slice(0, 800)}`);
    return found;
  };
  const send = (value: unknown) => ws.send(JSON.stringify(value));
  return { ws, messages, waitFor, send, pings: () => pings };
}


/** A recorded ticker's keys as the venue sends them since 2026: one side's open interest beside both sides'. */
const sinceOneSide = (keys: string[]) => keys.flatMap((k) => (k === 'openInterest' || k === 'openInterestValue' ? [k, k.replace('open', 'singleOpen')] : [k]));

describe('Bybit REST', () => {
  it('kline: the envelope, rows of 7 strings newest first with the open candle, the closed ones equal to the model and chained', async () => {
    await start();
    const { body } = await get('kline', { symbol: 'BTCUSDT', interval: '1', limit: 5 });
    expect(Object.keys(body)).toEqual(['retCode', 'retMsg', 'result', 'retExtInfo', 'time']);
    expect(body.time).toBe(T);
    expect(Object.keys(body.result)).toEqual(Object.keys(recorded.kline.body.result));
    const rows: string[][] = body.result.list;
    expect(rows.map((r) => Number(r[0]))).toEqual([0, 1, 2, 3, 4].map((k) => minuteOf(T) - k * MINUTE));
    for (const r of rows) expect(r.map((v) => typeof v)).toEqual(recorded.kline.body.result.list[0].map((v) => typeof v));
    rows.slice(1).forEach((r, k) => {
      expect(sim.candle('bybit', 'BTCUSDT', '1', Number(r[0]))).toEqual({ open: r[1], high: r[2], low: r[3], close: r[4], volume: r[5] });
      expect(sim.tradeFlow('bybit', 'BTCUSDT', '1', Number(r[0]))).toEqual({ turnover: r[6] });
      expect(r[4]).toBe(rows[k][1]); // a candle closes where the newer one opens
    });
    // BTC trades on a 0.1 tick, trimmed as Bybit prints it ("43488", "43376.1").
    for (const v of rows.flatMap((r) => r.slice(1, 5))) expect(v).toMatch(/^\d+(\.\d)?$/);
    // The open candle is partial: 42.5 s of the minute's volume.
    expect(Number(rows[0][5])).toBeLessThan(Number(sim.candle('bybit', 'BTCUSDT', '1', minuteOf(T) - MINUTE)!.volume) * 3);
  });

  it('kline: a range longer than limit answers its newest rows, ending at end; D opens at midnight, W on Monday; default 200, at most 1,000', async () => {
    await start();
    const end = minuteOf(T) - 2 * HOUR + 30_000;
    const rows = await list('kline', { symbol: 'ETHUSDT', interval: '1', start: end - HOUR, end, limit: 10 });
    expect(rows.map((r) => Number(r[0]))).toEqual(Array.from({ length: 10 }, (_, k) => minuteOf(end) - k * MINUTE));
    const days = await list('kline', { symbol: 'BTCUSDT', interval: 'D', limit: 3 });
    expect(days.map((r) => Number(r[0]))).toEqual([0, 1, 2].map((k) => Math.floor(T / DAY) * DAY - k * DAY));
    const weeks = await list('kline', { symbol: 'BTCUSDT', interval: 'W', limit: 2 });
    expect(weeks.map((r) => new Date(Number(r[0])).toISOString())).toEqual(['2026-11-16T00:00:00.000Z', '2026-11-09T00:00:00.000Z']);
    expect(await list('kline', { symbol: 'BTCUSDT', interval: '60' })).toHaveLength(200);
    expect((await get('kline', { symbol: 'BTCUSDT', interval: '1', limit: 1_001 })).body).toMatchObject({ retCode: 10001, result: {} });
    expect((await get('kline', { symbol: 'BTCUSDT', interval: '2' })).body.retCode).toBe(10001);
  });

  it('an unknown symbol is HTTP 200 retCode 10001 "params error: symbol invalid"; an unknown path 404', async () => {
    await start();
    const res = await get('kline', { symbol: 'NOPEUSDT', interval: '1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ retCode: 10001, retMsg: 'params error: symbol invalid', result: {}, retExtInfo: {}, time: T });
    expect((await get('orderbook', { symbol: 'BTCUSDT' })).status).toBe(404);
    expect((await get('tickers', { category: 'spot', symbol: 'BTCUSDT' })).body.retCode).toBe(10001);
  });

  it('mark, index and premium klines: 5 strings newest first, the mark and index at the minute open as the model has them', async () => {
    await start();
    const query = { symbol: 'BTCUSDT', interval: '1', limit: 3 };
    const [mark, index, premium] = await Promise.all(['mark-price-kline', 'index-price-kline', 'premium-index-price-kline'].map((r) => list(r, query)));
    for (const rows of [mark, index, premium]) {
      expect(rows.map((r: string[]) => Number(r[0]))).toEqual([0, 1, 2].map((k) => minuteOf(T) - k * MINUTE));
      for (const r of rows) expect(r.map((v: unknown) => typeof v)).toEqual(recorded.mark_price_kline.body.result.list[0].map((v) => typeof v));
    }
    const open = minuteOf(T) - MINUTE;
    expect(Number(mark[1][1])).toBe(Number(sim.bybitTicker('BTCUSDT', open).markPrice));
    expect(Number(index[1][1])).toBe(Number(sim.bybitTicker('BTCUSDT', open).indexPrice));
    expect(Number(mark[1][1])).not.toBe(Number(index[1][1]));
    expect(Number(mark[1][2])).toBeGreaterThanOrEqual(Math.max(Number(mark[1][1]), Number(mark[1][4])));
    for (const r of premium) for (const v of r.slice(1)) expect(v).toMatch(/^-?0\.\d{6}$/);
    // The premium of the sampled prices: mark over index, less 1.
    expect(Number(premium[1][1])).toBeCloseTo(Number(mark[1][1]) / Number(index[1][1]) - 1, 5);
  });

  it('funding history: newest first on the hour, rates as Bybit writes them; startTime alone is refused; endTime pages back without overlap', async () => {
    await start();
    const alone = await get('funding/history', { symbol: 'BTCUSDT', startTime: T - DAY });
    expect(alone.status).toBe(200);
    expect(alone.body).toMatchObject({ retCode: 10001, retMsg: expect.stringContaining('startTime and endTime'), result: {} });

    const first = await list('funding/history', { symbol: 'BTCUSDT', limit: 5 });
    expect(Object.keys(first[0])).toEqual(Object.keys(recorded.funding_history.body.list[0]));
    const lastSettlement = Math.floor(T / (8 * HOUR)) * 8 * HOUR;
    const stamps = first.map((f) => Number(f.fundingRateTimestamp));
    expect(stamps).toEqual([0, 1, 2, 3, 4].map((k) => lastSettlement - k * 8 * HOUR));
    for (const f of first) {
      expect(f.fundingRate).toMatch(RATE);
      expect(sim.bybitFunding('BTC', Number(f.fundingRateTimestamp))).toEqual({ fundingRateTimestamp: Number(f.fundingRateTimestamp), fundingRate: f.fundingRate });
    }
    const second = await list('funding/history', { symbol: 'BTCUSDT', limit: 5, endTime: stamps[4] - 1 });
    expect(second.map((f) => Number(f.fundingRateTimestamp))).toEqual([1, 2, 3, 4, 5].map((k) => stamps[4] - k * 8 * HOUR));
    // A range holding more than limit answers its newest.
    const range = await list('funding/history', { symbol: 'BTCUSDT', startTime: lastSettlement - 10 * DAY, endTime: lastSettlement - DAY, limit: 2 });
    expect(range.map((f) => Number(f.fundingRateTimestamp))).toEqual([lastSettlement - DAY, lastSettlement - DAY - 8 * HOUR]);
    expect(await list('funding/history', { symbol: 'BTCUSDT' })).toHaveLength(200);
  });

  it('instruments-info: perpetuals with fundingInterval in minutes beside a dated future and a pre-launch; setBybitInterval changes it, USD-M does not', async () => {
    await start();
    const doc = recorded.instruments_info.body.LinearInverse.list[0];
    const before = await list('instruments-info');
    expect(before.map((i) => [i.symbol, i.contractType, i.status, i.fundingInterval])).toEqual([
      ['BTCUSDT', 'LinearPerpetual', 'Trading', 480],
      ['ETHUSDT', 'LinearPerpetual', 'Trading', 480],
      ['BTC-25DEC26', 'LinearFutures', 'Trading', 0],
      ['NEWUSDT', 'LinearPerpetual', 'PreLaunch', 480],
    ]);
    expect(Object.keys(before[0])).toEqual(expect.arrayContaining(Object.keys(doc)));
    expect(before[0]).toMatchObject({ baseCoin: 'BTC', priceScale: '2', priceFilter: { tickSize: '0.10' }, lotSizeFilter: { qtyStep: '0.001' }, deliveryTime: '0' });
    expect(before[1]).toMatchObject({ priceFilter: { tickSize: '0.01' }, lotSizeFilter: { qtyStep: '0.01' } });

    const change = Math.floor(T / (8 * HOUR)) * 8 * HOUR - 8 * HOUR;
    sim.setBybitInterval('ETH', 4, change);
    sim.setBinancePerpInterval('BTC', 1, change);
    const after = await list('instruments-info');
    expect(after.map((i) => i.fundingInterval)).toEqual([480, 240, 0, 480]);
    const eth = await list('funding/history', { symbol: 'ETHUSDT', startTime: change - 8 * HOUR, endTime: T });
    expect(eth.map((f) => (Number(f.fundingRateTimestamp) - change) / HOUR)).toEqual([12, 8, 4, 0, -8]);
    expect(sim.bybitFunding('BTC', change + 4 * HOUR)).toBeNull();
    expect(sim.bybitFunding('ETH', change + 4 * HOUR)).not.toBeNull();
    const [ticker] = await list('tickers', { symbol: 'ETHUSDT' });
    expect(Number(ticker.nextFundingTime)).toBe(change + 16 * HOUR);
  });

  it('open interest: newest first on the interval, the model at each stamp, paged back by the cursor without overlap until it is empty', async () => {
    await start();
    const step = 5 * MINUTE;
    const newest = Math.floor(T / step) * step;
    const query = { symbol: 'BTCUSDT', intervalTime: '5min', startTime: newest - 119 * step, limit: 50 };
    const pages: Json[] = [];
    let cursor = '';
    do {
      const { body } = await get('open-interest', cursor ? { ...query, cursor } : query);
      expect(Object.keys(body.result)).toEqual(Object.keys(recorded.open_interest.body.result));
      pages.push(body.result.list);
      cursor = body.result.nextPageCursor;
    } while (cursor !== '' && pages.length < 5);
    expect(pages.map((p) => p.length)).toEqual([50, 50, 20]);
    const stamps = pages.flat().map((r: Json) => Number(r.timestamp));
    expect(stamps).toEqual(Array.from({ length: 120 }, (_, k) => newest - k * step));
    for (const r of pages.flat().slice(0, 60)) {
      expect(r.openInterest).toMatch(/^\d+\.\d{8}$/);
      expect(Number(r.openInterest)).toBe(Number(sim.bybitTicker('BTCUSDT', Number(r.timestamp)).openInterest));
    }
    const hours = await list('open-interest', { symbol: 'BTCUSDT', intervalTime: '1h', limit: 2 });
    expect(hours.map((r) => Number(r.timestamp))).toEqual([Math.floor(T / HOUR) * HOUR, Math.floor(T / HOUR) * HOUR - HOUR]);
    // Two years back, not thirty days.
    const old = await list('open-interest', { symbol: 'BTCUSDT', intervalTime: '1d', endTime: T - 300 * DAY, limit: 1 });
    expect(Number(old[0].timestamp)).toBe(Math.floor((T - 300 * DAY) / DAY) * DAY);
    expect((await get('open-interest', { symbol: 'BTCUSDT', intervalTime: '5m' })).body.retCode).toBe(10001);
  });

  it('tickers: one ticker of strings in the recorded order, the model at that moment', async () => {
    await start();
    const [ticker] = await list('tickers', { symbol: 'BTCUSDT' });
    expect(Object.keys(ticker)).toEqual(sinceOneSide(Object.keys(recorded.tickers.body.result.list[0])));
    for (const v of Object.values(ticker)) expect(typeof v).toBe('string');
    const model = sim.bybitTicker('BTCUSDT', T);
    const { tickDirection: _direction, ...same } = model;
    expect(ticker).toMatchObject(same);
    expect(ticker.fundingRate).toMatch(RATE);
    expect(Number(ticker.nextFundingTime)).toBe(Math.ceil(T / (8 * HOUR)) * 8 * HOUR);
    expect(Number(ticker.ask1Price) - Number(ticker.bid1Price)).toBeCloseTo(0.1, 6);
  });

  it('past the request limit: HTTP 200 retCode 10006 with X-Bapi-Limit headers; failNext 429 with Retry-After, 403 "access too frequent", 502', async () => {
    await start({ bybitWeightLimit: 2 });
    const statuses = [];
    for (let k = 0; k < 3; k++) statuses.push(await get('tickers', { symbol: 'BTCUSDT' }));
    expect(statuses.map((r) => [r.status, r.body.retCode])).toEqual([[200, 0], [200, 0], [200, 10006]]);
    expect(statuses[2].body).toEqual({ retCode: 10006, retMsg: 'Too many visits!', result: {}, retExtInfo: {}, time: T });
    expect(statuses[2].headers.get('x-bapi-limit-status')).toBe('0');
    expect(statuses[2].headers.get('x-bapi-limit')).toBe('2');
    expect(statuses[2].headers.get('x-bapi-limit-reset-timestamp')).toBe(String(minuteOf(T) + MINUTE));
    expect(sim.weightUsed('bybit')).toBe(2);

    await sim.close();
    await start();
    sim.failNext('bybit', 1, 429, 3);
    sim.failNext('bybit', 1, 403);
    sim.failNext('bybit', 1, 502);
    const limited = await get('tickers', { symbol: 'BTCUSDT' });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
    const banned = await get('tickers', { symbol: 'BTCUSDT' });
    expect([banned.status, banned.text]).toEqual([403, 'access too frequent']);
    expect((await get('tickers', { symbol: 'BTCUSDT' })).status).toBe(502);
    expect((await get('tickers', { symbol: 'BTCUSDT' })).status).toBe(200);
    expect(sim.requests.map((r) => [r.venue, r.kind, r.status, r.weight])).toEqual([
      ['bybit', 'tickers', 429, 0],
      ['bybit', 'tickers', 403, 0],
      ['bybit', 'tickers', 502, 0],
      ['bybit', 'tickers', 200, 1],
    ]);
  });

  it('malformNext breaks the next kline rows, newest first, one kind after another, times still strings', async () => {
    await start();
    sim.malformNext('bybit', 6);
    const rows = await list('kline', { symbol: 'BTCUSDT', interval: '1', limit: 7 });
    expect(rows[0][1]).toBe('abc');
    expect(Number(rows[1][2])).toBeLessThan(Number(rows[1][3]));
    expect(rows[2][5]).toMatch(/^-/);
    expect(typeof rows[3][4]).toBe('number');
    expect([typeof rows[4][0], Number(rows[4][0]) % MINUTE]).toEqual(['string', 30_000]);
    expect(rows[5]).toHaveLength(6);
    expect(rows[6]).toEqual(expect.arrayContaining([expect.stringMatching(/^\d+(\.\d)?$/)]));
    expect(rows[6]).toHaveLength(7);
  });
});

describe('Bybit WebSocket', () => {
  const startLive = (opts: SimOptions = {}) => start({ now: clock.now, pushIntervalMs: 100, ...opts });

  it('the URL is the full stream path; subscribe is acknowledged with req_id, ping gets pong, an unknown topic is refused; no server pings', async () => {
    await startLive();
    expect(sim.env.BYBIT_WS_URL).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/bybit\/v5\/public\/linear$/);
    expect(sim.env.BYBIT_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/bybit$/);
    const c = await connect();
    c.send({ op: 'subscribe', args: ['kline.1.BTCUSDT'], req_id: 'a1' });
    const ack = await c.waitFor((m) => m.op === 'subscribe');
    expect(ack).toEqual({ success: true, ret_msg: '', conn_id: expect.stringMatching(/^[0-9a-f-]{36}$/), req_id: 'a1', op: 'subscribe' });
    c.send({ op: 'ping' });
    const pong = await c.waitFor((m) => m.op === 'ping');
    expect(Object.keys(pong)).toEqual(Object.keys(recorded.ws_pong.body));
    expect(pong).toEqual({ success: true, ret_msg: 'pong', conn_id: ack.conn_id, req_id: '', op: 'ping' });
    c.send({ op: 'subscribe', args: ['kline.1.NOPEUSDT'] });
    expect(await c.waitFor((m) => m.op === 'subscribe' && !m.success)).toMatchObject({ ret_msg: 'error:handler not found,topic:kline.1.NOPEUSDT', req_id: '' });
    await c.waitFor((m) => m.topic === 'kline.1.BTCUSDT');
    expect(c.pings()).toBe(0);

    sim.setSilent('bybit', true);
    const heard = c.messages.length;
    c.send({ op: 'ping' });
    await new Promise((r) => setTimeout(r, 300));
    expect(c.messages.length).toBe(heard);
    const closed = new Promise((resolve) => c.ws.once('close', resolve));
    sim.dropSockets('bybit');
    await closed;
    expect(sim.sockets('bybit')).toEqual({ open: 0, accepted: 1 });
  });

  it('tickers: a snapshot in the recorded shape, then deltas of only the changed fields; merged, they are the model at each frame', async () => {
    await startLive({ contextIntervalMs: 200 });
    const c = await connect();
    c.send({ op: 'subscribe', args: ['tickers.BTCUSDT'] });
    const frames = () => c.messages.filter((m) => m.topic === 'tickers.BTCUSDT');
    await pollUntil(async () => frames().length, (n) => n >= 8, { withinMs: 6_000, everyMs: 20 });
    c.ws.close();
    const [snapshot, ...deltas] = frames();
    expect(snapshot.type).toBe('snapshot');
    expect(Object.keys(snapshot)).toEqual(Object.keys(recorded.ws_tickers_snapshot.body));
    expect(Object.keys(snapshot.data)).toEqual(sinceOneSide(Object.keys(recorded.ws_tickers_snapshot.body.data)));
    expect(snapshot.data).toEqual(sim.bybitTicker('BTCUSDT', snapshot.ts));
    const merged = { ...snapshot.data };
    for (const d of deltas) {
      expect(d.type).toBe('delta');
      expect(Object.keys(d.data)[0]).toBe('symbol');
      const changed = Object.keys(d.data).filter((k) => k !== 'symbol');
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.length).toBeLessThan(Object.keys(snapshot.data).length - 1);
      for (const k of changed) expect(d.data[k]).not.toBe(merged[k]);
      Object.assign(merged, d.data);
      expect(merged).toEqual(sim.bybitTicker('BTCUSDT', d.ts));
      expect(d.ts % 200).toBe(100); // pushed at the context slots, half an interval off
    }
    expect(deltas.some((d) => !('nextFundingTime' in d.data))).toBe(true);
    // The model's context: the mark and index of the markPrice stream's model, a tick-wide book around the mid.
    const last = deltas.at(-1);
    const ctx = sim.context('BTC', last.ts);
    expect(Number(merged.markPrice) / Number(ctx.markPx) - 1).toBeLessThan(1e-4);
    expect(Number(merged.indexPrice) / Number(ctx.oraclePx) - 1).toBeLessThan(1e-4);
    expect(Number(merged.ask1Price) - Number(merged.bid1Price)).toBeCloseTo(0.1, 6);
  });

  it('kline: open candles with confirm false, then one frame with the closed candle (confirm true, equal to REST) and the next one open', async () => {
    clock.offset = MINUTE - 400 - (Date.now() % MINUTE);
    await startLive();
    const c = await connect();
    c.send({ op: 'subscribe', args: ['kline.1.BTCUSDT', 'kline.1.ETHUSDT'], req_id: 'k' });
    const open = minuteOf(clock.now());
    const closing = await c.waitFor((m) => m.topic === 'kline.1.BTCUSDT' && m.data.length === 2);
    c.ws.close();
    const [closed, next] = closing.data;
    expect(closed).toMatchObject({ start: open, end: open + MINUTE - 1, interval: '1', confirm: true });
    expect(next).toMatchObject({ start: open + MINUTE, end: open + 2 * MINUTE - 1, interval: '1', confirm: false });
    expect(closing.type).toBe('snapshot');
    const before = c.messages.filter((m) => m.topic === 'kline.1.BTCUSDT' && m !== closing);
    expect(before.length).toBeGreaterThanOrEqual(2);
    for (const m of before) expect(m.data).toEqual([expect.objectContaining({ start: open, confirm: false })]);
    expect(Object.keys(before[0])).toEqual(Object.keys(recorded.ws_kline.body));
    expect(Object.keys(closed)).toEqual(Object.keys(recorded.ws_kline.body.data[0]));
    const { body } = await get('kline', { symbol: 'BTCUSDT', interval: '1', start: open, end: open });
    expect([closed.open, closed.high, closed.low, closed.close, closed.volume, closed.turnover]).toEqual(body.result.list[0].slice(1));
    expect(c.messages.filter((m) => m.topic === 'kline.1.BTCUSDT' && m.data.some((k: Json) => k.confirm))).toHaveLength(1);
  });
});
