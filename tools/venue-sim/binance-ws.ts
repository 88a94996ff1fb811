/**
 * Binance spot's market streams (real base: wss://stream.binance.com:9443): combined streams at
 * /stream?streams=<a>/<b> wrap each event as {"stream","data"}, raw ones at /ws/<name> send it
 * alone; <symbol>@kline_<interval> pushes "x":false while the kline is open and "x":true exactly
 * once when it closes (an unknown stream stays quiet); SUBSCRIBE, UNSUBSCRIBE and
 * LIST_SUBSCRIPTIONS answer {"result","id"}, errors {"code","msg","id"}; a ping every
 * pingIntervalMs (20 s), and a connection without a pong for a minute is dropped.
 */
import type WebSocket from 'ws';
import type { Interval } from './intervals';
import type { LiveSubscription, PushKind } from './live-feed';
import { malformObject } from './malform';
import type { SocketDeps } from './sockets';
import { binanceStreamKline } from './wire-format';

export interface StreamOptions {
  streams: string[];
  /** Events wrapped as {"stream","data"} (/stream) or sent alone (/ws). */
  combined: boolean;
  pingIntervalMs: number;
}

const PONG_TIMEOUT_MS = 60_000;
const KLINE_STREAM = /^([a-z0-9]+)@kline_([0-9]+[smhdwM])$/;
const STALE_PROGRESS = 0.5;
const METHODS = '`SUBSCRIBE`, `UNSUBSCRIBE`, `LIST_SUBSCRIPTIONS`, `SET_PROPERTY`, `GET_PROPERTY`';

type Request = { method?: unknown; params?: unknown; id?: unknown };

function parseRequest(text: string): Request | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Request) : {};
  } catch {
    return null;
  }
}

class StreamConnection {
  /** Every stream listened to; the served kline streams have a live subscription. */
  private readonly streams = new Map<string, LiveSubscription | null>();
  private lastPong = Date.now();

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: SocketDeps,
    private readonly o: StreamOptions,
  ) {
    const pinger = setInterval(() => this.heartbeat(), o.pingIntervalMs);
    pinger.unref();
    ws.on('pong', () => (this.lastPong = Date.now()));
    deps.sockets.register('binance', ws, () => {
      clearInterval(pinger);
      [...this.streams.keys()].forEach((name) => this.stop(name));
    });
    ws.on('message', (raw) => this.answer(String(raw)));
    o.streams.forEach((name) => this.listen(name));
  }

  private send(value: unknown): void {
    this.deps.sockets.send('binance', this.ws, JSON.stringify(value));
  }

  /** A ping frame, or the end of a connection that stopped answering them; nothing while silent. */
  private heartbeat(): void {
    if (this.deps.sockets.isSilent('binance')) this.lastPong = Date.now();
    else if (Date.now() - this.lastPong > PONG_TIMEOUT_MS) this.ws.terminate();
    else this.ws.ping();
  }

  private listen(name: string): void {
    if (this.streams.has(name)) return;
    const live = this.liveOf(name);
    this.streams.set(name, live);
    if (live !== null) this.deps.feed.add(live);
  }

  private stop(name: string): void {
    const live = this.streams.get(name);
    if (live) this.deps.feed.remove(live);
    this.streams.delete(name);
  }

  /** The live subscription of a kline stream the venue serves, else null (a quiet stream). */
  private liveOf(name: string): LiveSubscription | null {
    const m = KLINE_STREAM.exec(name);
    const symbol = m?.[1].toUpperCase() ?? '';
    const interval = m ? this.deps.ctx.market.interval('binance', m[2]) : undefined;
    if (interval === undefined || !this.deps.ctx.market.serves('binance', symbol)) return null;
    return { venue: 'binance', instrument: symbol, interval, push: (open, kind) => this.push(name, symbol, interval, open, kind) };
  }

  private push(name: string, symbol: string, interval: Interval, open: number, kind: PushKind): void {
    const { market, faults } = this.deps.ctx;
    const values = market.values('binance', symbol, interval, open, kind === 'resent' ? STALE_PROGRESS : undefined);
    const k = binanceStreamKline(market.frame(symbol, interval, open), values, kind === 'closed');
    const broken = faults.takeMalform('binance');
    if (broken !== null) malformObject(k, broken);
    const event = { e: 'kline', E: market.now(), s: symbol, k };
    this.send(this.o.combined ? { stream: name, data: event } : event);
  }

  private answer(text: string): void {
    const req = parseRequest(text);
    if (req === null) return this.send({ code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' });
    const id = req.id;
    if (!Number.isSafeInteger(id) || (id as number) < 0) return this.send({ code: 2, msg: 'Invalid request: request ID must be an unsigned integer', id: null });
    const names = Array.isArray(req.params) ? req.params.filter((p): p is string => typeof p === 'string') : [];
    if (req.method === 'SUBSCRIBE') names.forEach((name) => this.listen(name));
    else if (req.method === 'UNSUBSCRIBE') names.forEach((name) => this.stop(name));
    else if (req.method === 'LIST_SUBSCRIPTIONS') return this.send({ result: [...this.streams.keys()], id });
    else return this.send({ code: 2, msg: `Invalid request: unknown variant \`${String(req.method)}\`, expected one of ${METHODS}`, id });
    this.send({ result: null, id });
  }
}

export function serveBinanceSocket(ws: WebSocket, deps: SocketDeps, o: StreamOptions): void {
  new StreamConnection(ws, deps, o);
}
