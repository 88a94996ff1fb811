/**
 * Hyperliquid's WebSocket (real: wss://api.hyperliquid.xyz/ws), JSON text frames:
 * - {"method":"subscribe","subscription":{"type":"candle",...}} is acknowledged on "subscriptionResponse",
 *   then {"channel":"candle","data":{t,T,s,i,o,c,h,l,v,n}} pushed again and again while the candle is
 *   open (no closed flag); {"type":"activeAssetCtx","coin"} pushes {"channel":"activeAssetCtx",
 *   "data":{"coin","ctx":{...}}}; "unsubscribe" likewise; {"method":"ping"} gets {"channel":"pong"};
 *   {"method":"post",...} an info answer on "post"; anything else {"channel":"error","data":"..."}.
 */
import type WebSocket from 'ws';
import type { ContextSubscription } from './context-feed';
import { modelContext } from './context-model';
import { answerInfo, candleRow } from './hyperliquid-rest';
import type { LiveSubscription } from './live-feed';
import type { SocketDeps } from './sockets';
import { hyperliquidContext } from './wire-format';

type Obj = Record<string, unknown>;

const isObject = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The half-way values a stale re-send of a closed candle carries. */
const STALE_PROGRESS = 0.5;

function parse(text: string): Obj | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

class HyperliquidConnection {
  /** Live candle subscriptions by "coin|interval". */
  private readonly subs = new Map<string, LiveSubscription>();
  /** Asset-context subscriptions by coin. */
  private readonly contexts = new Map<string, ContextSubscription>();

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: SocketDeps,
  ) {
    deps.sockets.register('hyperliquid', ws, () => {
      this.subs.forEach((s) => deps.feed.remove(s));
      this.contexts.forEach((s) => deps.contexts.remove(s));
    });
    ws.on('message', (raw) => this.answer(String(raw)));
  }

  private send(value: unknown): void {
    this.deps.sockets.send('hyperliquid', this.ws, JSON.stringify(value));
  }

  private error(text: string): void {
    this.send({ channel: 'error', data: text });
  }

  private answer(text: string): void {
    const msg = parse(text);
    if (msg?.method === 'ping') this.send({ channel: 'pong' });
    else if (msg?.method === 'subscribe') this.subscribe(msg.subscription);
    else if (msg?.method === 'unsubscribe') this.unsubscribe(msg.subscription);
    else if (msg?.method === 'post' && Number.isSafeInteger(msg.id)) this.post(msg);
    else this.error(`Error parsing JSON into valid websocket request: ${text}`);
  }

  /** The candle subscription named, if the venue serves it. */
  private candleOf(sub: unknown) {
    if (!isObject(sub) || sub.type !== 'candle' || typeof sub.coin !== 'string' || typeof sub.interval !== 'string') return null;
    const interval = this.deps.ctx.market.interval('hyperliquid', sub.interval);
    if (interval === undefined || !this.deps.ctx.market.serves('hyperliquid', sub.coin)) return null;
    return { coin: sub.coin, interval, key: `${sub.coin}|${sub.interval}` };
  }

  /** The asset-context subscription named, if the venue serves its coin. */
  private contextOf(sub: unknown): string | null {
    if (!isObject(sub) || sub.type !== 'activeAssetCtx' || typeof sub.coin !== 'string') return null;
    return this.deps.ctx.market.serves('hyperliquid', sub.coin) ? sub.coin : null;
  }

  private subscribeContext(coin: string, sub: unknown): void {
    if (this.contexts.has(coin)) return this.error(`Already subscribed: ${JSON.stringify(sub)}`);
    this.send({ channel: 'subscriptionResponse', data: { method: 'subscribe', subscription: sub } });
    const live: ContextSubscription = {
      coin,
      push: (at) => this.send({ channel: 'activeAssetCtx', data: { coin, ctx: hyperliquidContext(coin, modelContext(coin, at)) } }),
    };
    this.contexts.set(coin, live);
    this.deps.contexts.add(live);
  }

  private subscribe(sub: unknown): void {
    const coin = this.contextOf(sub);
    if (coin !== null) return this.subscribeContext(coin, sub);
    const c = this.candleOf(sub);
    if (c === null) return this.error(`Invalid subscription ${JSON.stringify(sub)}`);
    if (this.subs.has(c.key)) return this.error(`Already subscribed: ${JSON.stringify(sub)}`);
    this.send({ channel: 'subscriptionResponse', data: { method: 'subscribe', subscription: sub } });
    const live: LiveSubscription = {
      venue: 'hyperliquid',
      instrument: c.coin,
      interval: c.interval,
      push: (open, kind) => this.send({ channel: 'candle', data: candleRow(this.deps.ctx, c.coin, c.interval, open, kind === 'resent' ? STALE_PROGRESS : undefined) }),
    };
    this.subs.set(c.key, live);
    this.deps.feed.add(live);
  }

  private unsubscribe(sub: unknown): void {
    const coin = this.contextOf(sub);
    const context = coin === null ? undefined : this.contexts.get(coin);
    if (context) {
      this.contexts.delete(context.coin);
      this.deps.contexts.remove(context);
      return this.send({ channel: 'subscriptionResponse', data: { method: 'unsubscribe', subscription: sub } });
    }
    const key = this.candleOf(sub)?.key ?? '';
    const live = this.subs.get(key);
    if (live === undefined) return this.error(`Already unsubscribed: ${JSON.stringify(sub)}`);
    this.subs.delete(key);
    this.deps.feed.remove(live);
    this.send({ channel: 'subscriptionResponse', data: { method: 'unsubscribe', subscription: sub } });
  }

  /** An info request over the socket; signed actions are not simulated. */
  private post(msg: Obj): void {
    const request = msg.request;
    const reply = (response: unknown) => this.send({ channel: 'post', data: { id: msg.id, response } });
    if (!isObject(request) || request.type !== 'info') return reply({ type: 'error', payload: '400 Bad Request: only info requests are simulated' });
    const a = answerInfo(this.deps.ctx, request.payload);
    const type = isObject(request.payload) ? request.payload.type : undefined;
    reply(a.ok ? { type: 'info', payload: { type, data: a.render() } } : { type: 'error', payload: `422 Unprocessable Entity: ${a.error}` });
  }
}

export function serveHyperliquidSocket(ws: WebSocket, deps: SocketDeps): void {
  new HyperliquidConnection(ws, deps);
}
