/**
 * Bybit v5's public linear stream (real: wss://stream.bybit.com/v5/public/linear): "subscribe",
 * "unsubscribe" and "ping" ops acknowledged {success, ret_msg, conn_id, req_id, op}; no server
 * pings. kline.<interval>.<symbol> pushes the open candle (confirm false); at the close one frame
 * holds the closed candle (confirm true) and the next open one, as Bybit sometimes sends them.
 * tickers.<symbol>: a snapshot, then each context slot a delta of only the changed fields.
 */
import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { bybitStreamKline } from './bybit-format';
import { bybitTicker, tickerDelta, type BybitTicker } from './bybit-ticker';
import type { ContextSubscription } from './context-feed';
import type { Interval } from './intervals';
import type { LiveSubscription, PushKind } from './live-feed';
import { BYBIT_STREAM_KEYS, malformObject } from './malform';
import type { SocketDeps } from './sockets';
import { coinOf } from './venues';

/** The half-way values a stale re-send of a closed candle carries. */
const STALE_PROGRESS = 0.5;
const KLINE_TOPIC = /^kline\.([0-9]+|[DWM])\.([A-Z0-9]+)$/;
const TICKERS_TOPIC = /^tickers\.([A-Z0-9]+)$/;

type Obj = Record<string, unknown>;
type Topic = { kind: 'kline'; live: LiveSubscription } | { kind: 'tickers'; live: ContextSubscription };

function parse(text: string): Obj | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : null;
  } catch {
    return null;
  }
}

class BybitConnection {
  private readonly topics = new Map<string, Topic>();
  private readonly connId = randomUUID();

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: SocketDeps,
  ) {
    deps.sockets.register('bybit', ws, () => [...this.topics.keys()].forEach((name) => this.stop(name)));
    ws.on('message', (raw) => this.answer(String(raw)));
  }

  private send(value: unknown): void {
    this.deps.sockets.send('bybit', this.ws, JSON.stringify(value));
  }

  private ack(op: string, reqId: unknown, success: boolean, retMsg: string): void {
    this.send({ success, ret_msg: retMsg, conn_id: this.connId, req_id: typeof reqId === 'string' ? reqId : '', op });
  }

  private answer(text: string): void {
    const msg = parse(text);
    const op = typeof msg?.op === 'string' ? msg.op : '';
    const args = Array.isArray(msg?.args) ? msg.args.filter((a): a is string => typeof a === 'string') : [];
    if (op === 'ping') return this.ack('ping', msg?.req_id, true, 'pong');
    if (op === 'subscribe') return this.subscribe(args, msg?.req_id);
    if (op === 'unsubscribe') {
      args.forEach((name) => this.stop(name));
      return this.ack(op, msg?.req_id, true, '');
    }
    this.ack(op, msg?.req_id, false, msg === null ? 'error:invalid json' : `error:unknown op ${op}`);
  }

  /** Acknowledges first (a refusal names the first topic refused), then starts the topics accepted, which push at once. */
  private subscribe(names: string[], reqId: unknown): void {
    const accepted = new Map<string, Topic>();
    let refusal = '';
    for (const name of names) {
      const topic = this.topics.has(name) || accepted.has(name) ? 'already' : this.topicOf(name);
      if (typeof topic === 'object') accepted.set(name, topic);
      else if (refusal === '') refusal = topic === 'already' ? `error:already subscribed,topic:${name}` : `error:handler not found,topic:${name}`;
    }
    this.ack('subscribe', reqId, refusal === '', refusal);
    for (const [name, topic] of accepted) {
      this.topics.set(name, topic);
      if (topic.kind === 'kline') this.deps.feed.add(topic.live);
      else this.deps.contexts.add(topic.live);
    }
  }

  private stop(name: string): void {
    const topic = this.topics.get(name);
    if (topic?.kind === 'kline') this.deps.feed.remove(topic.live);
    else if (topic?.kind === 'tickers') this.deps.contexts.remove(topic.live);
    this.topics.delete(name);
  }

  private topicOf(name: string): Topic | 'unknown' {
    const { market } = this.deps.ctx;
    const kline = KLINE_TOPIC.exec(name);
    const interval = kline ? market.interval('bybit', kline[1]) : undefined;
    if (kline && interval !== undefined && market.serves('bybit', kline[2])) {
      return { kind: 'kline', live: { venue: 'bybit', instrument: kline[2], interval, push: this.klinePusher(name, kline[2], interval) } };
    }
    const tickers = TICKERS_TOPIC.exec(name);
    if (tickers && market.serves('bybit', tickers[1])) return { kind: 'tickers', live: this.tickerPusher(name, tickers[1]) };
    return 'unknown';
  }

  /**
   * Pushes a kline topic's candles. A closed candle (and its stale re-send) waits for the next
   * open one, which LiveFeed pushes in the same turn, to go in the same frame; alone if none comes.
   */
  private klinePusher(name: string, symbol: string, interval: Interval): LiveSubscription['push'] {
    const { market, faults } = this.deps.ctx;
    const coin = coinOf('bybit', symbol);
    const waiting: Obj[] = [];
    const flush = () => {
      if (waiting.length > 0) this.send({ topic: name, data: waiting.splice(0), ts: market.now(), type: 'snapshot' });
    };
    return (open: number, kind: PushKind) => {
      const values = market.values('bybit', symbol, interval, open, kind === 'resent' ? STALE_PROGRESS : undefined);
      const candle = bybitStreamKline(market.frame(symbol, interval, open), coin, values, kind === 'closed', market.now());
      const broken = faults.takeMalform('bybit');
      if (broken !== null) malformObject(candle, broken, BYBIT_STREAM_KEYS);
      waiting.push(candle);
      if (kind === 'open') flush();
      else if (waiting.length === 1) setImmediate(flush);
    };
  }

  /**
   * A tickers topic: the first push a snapshot, then deltas of the fields whose text changed
   * since the last frame sent (none changed: nothing); while silent nothing counts as sent.
   */
  private tickerPusher(name: string, symbol: string): ContextSubscription {
    let last: BybitTicker | null = null;
    return {
      coin: coinOf('bybit', symbol),
      push: (at) => {
        if (this.deps.sockets.isSilent('bybit')) return;
        const now = bybitTicker(this.deps.ctx.market, symbol, at);
        const data = last === null ? now : tickerDelta(last, now);
        const type = last === null ? 'snapshot' : 'delta';
        last = now;
        if (data !== null) this.send({ topic: name, type, data, cs: Math.floor(at / 10), ts: at });
      },
    };
  }
}

export function serveBybitSocket(ws: WebSocket, deps: SocketDeps): void {
  new BybitConnection(ws, deps);
}
