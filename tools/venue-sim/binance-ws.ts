/**
 * Binance's market streams, spot (wss://stream.binance.com:9443) and USD-M (wss://fstream.binance.com):
 * /stream?streams=<a>/<b> wraps events as {"stream","data"}, /ws/<name> sends them alone;
 * <symbol>@kline_<interval> pushes "x":false while open and "x":true once at the close;
 * USD-M's <symbol>@markPrice@1s one markPriceUpdate a second. SUBSCRIBE, UNSUBSCRIBE and
 * LIST_SUBSCRIPTIONS answer {"result","id"}, errors {"code","msg","id"}; a ping every
 * pingIntervalMs (20 s); a connection without a pong for a minute is dropped.
 */
import type WebSocket from 'ws';
import type { Interval } from './intervals';
import type { LiveSubscription, PushKind } from './live-feed';
import { malformObject } from './malform';
import type { SocketDeps } from './sockets';
import { modelContext } from './context-model';
import { coinOf } from './venues';
import { binanceStreamKline, usdmMarkPriceEvent } from './wire-format';

export interface StreamOptions {
  venue: 'binance' | 'binance-perp';
  streams: string[];
  /** Events wrapped as {"stream","data"} (/stream) or sent alone (/ws). */
  combined: boolean;
  pingIntervalMs: number;
}

const PONG_TIMEOUT_MS = 60_000;
const KLINE_STREAM = /^([a-z0-9]+)@kline_([0-9]+[smhdwM])$/;
const MARK_PRICE_STREAM = /^([a-z0-9]+)@markPrice@1s$/;
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
  private readonly streams = new Map<string, LiveSubscription | NodeJS.Timeout | null>();
  private lastPong = Date.now();

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: SocketDeps,
    private readonly o: StreamOptions,
  ) {
    const pinger = setInterval(() => this.heartbeat(), o.pingIntervalMs);
    pinger.unref();
    ws.on('pong', () => (this.lastPong = Date.now()));
    deps.sockets.register(o.venue, ws, () => {
      clearInterval(pinger);
      [...this.streams.keys()].forEach((name) => this.stop(name));
    });
    ws.on('message', (raw) => this.answer(String(raw)));
    o.streams.forEach((name) => this.listen(name));
  }

  private send(value: unknown): void {
    this.deps.sockets.send(this.o.venue, this.ws, JSON.stringify(value));
  }

  /** A ping frame, or the end of a connection that stopped answering them; nothing while silent. */
  private heartbeat(): void {
    if (this.deps.sockets.isSilent(this.o.venue)) this.lastPong = Date.now();
    else if (Date.now() - this.lastPong > PONG_TIMEOUT_MS) this.ws.terminate();
    else this.ws.ping();
  }

  private listen(name: string): void {
    if (this.streams.has(name)) return;
    const mark = MARK_PRICE_STREAM.exec(name);
    if (mark && this.o.venue === 'binance-perp') return void this.streams.set(name, this.markPrices(name, mark[1].toUpperCase()));
    const live = this.liveOf(name);
    this.streams.set(name, live);
    if (live !== null) this.deps.feed.add(live);
  }

  private stop(name: string): void {
    const live = this.streams.get(name);
    if (live && 'push' in live) this.deps.feed.remove(live);
    else if (live) clearInterval(live);
    this.streams.delete(name);
  }

  /** One markPriceUpdate a second for a served symbol (null: a quiet stream). */
  private markPrices(name: string, symbol: string): NodeJS.Timeout | null {
    const { market } = this.deps.ctx;
    if (!market.serves('binance-perp', symbol)) return null;
    const coin = coinOf('binance-perp', symbol);
    const timer = setInterval(() => {
      const t = market.now();
      const event = usdmMarkPriceEvent(symbol, modelContext(coin, t), t, market.nextSettlement('binance-perp', coin, t));
      this.send(this.o.combined ? { stream: name, data: event } : event);
    }, 1_000);
    timer.unref();
    return timer;
  }

  /** The live subscription of a kline stream the venue serves, else null (a quiet stream). */
  private liveOf(name: string): LiveSubscription | null {
    const m = KLINE_STREAM.exec(name);
    const symbol = m?.[1].toUpperCase() ?? '';
    const interval = m ? this.deps.ctx.market.interval(this.o.venue, m[2]) : undefined;
    if (interval === undefined || !this.deps.ctx.market.serves(this.o.venue, symbol)) return null;
    return { venue: this.o.venue, instrument: symbol, interval, push: (open, kind) => this.push(name, symbol, interval, open, kind) };
  }

  private push(name: string, symbol: string, interval: Interval, open: number, kind: PushKind): void {
    const { market, faults } = this.deps.ctx;
    const values = market.values(this.o.venue, symbol, interval, open, kind === 'resent' ? STALE_PROGRESS : undefined);
    const k = binanceStreamKline(market.frame(symbol, interval, open), values, kind === 'closed');
    const broken = faults.takeMalform(this.o.venue);
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
