/**
 * A venue WebSocket that stays up: it reconnects after a drop, a refused handshake or silence
 * (no frame at all within the timeout, pings included) with full-jitter exponential backoff,
 * and re-sends its subscriptions on every connect. Messages reach the adapter as parsed JSON (one
 * that is not JSON is counted as a rejected row). Uses the `ws` package: Node 20's built-in
 * WebSocket reports a refused handshake as `error` without `close`.
 */
import WebSocket from 'ws';
import type { CandleStream, CandleStreamHandlers, VenueObserver } from './venue';
import { backoffMs } from './venue-http';

export interface VenueSocketOptions {
  venue: string;
  url: string;
  /** Frames sent after each connect (subscriptions). */
  subscribe(ws: WebSocket): void;
  /** A keep-alive the venue answers (an application ping, or a ws ping frame). */
  ping(ws: WebSocket): void;
  /** How often to ping when the venue asks for a cadence (Bybit: 20 s); never rarer than a third of the timeout. */
  pingEveryMs?: number;
  onMessage(msg: unknown): void;
  /** The follower told of connects and drops. */
  handlers: Pick<CandleStreamHandlers, 'onConnected' | 'onDisconnected'>;
  observer: VenueObserver;
  /** Silence longer than this closes the socket and reconnects. */
  timeoutMs: number;
}

export class VenueSocket implements CandleStream {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private closed = false;
  private silence: NodeJS.Timeout | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private isConnected = false;

  constructor(private readonly o: VenueSocketOptions) {
    this.open();
  }

  get connected(): boolean {
    return this.isConnected;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.stopTimers();
    this.ws?.terminate();
    this.ws = null;
  }

  private open(): void {
    if (this.closed) return;
    const ws = new WebSocket(this.o.url, { handshakeTimeout: this.o.timeoutMs });
    this.ws = ws;
    let ended = false;
    const end = (reason: string) => {
      if (ended) return;
      ended = true;
      this.stopTimers();
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      if (this.isConnected) {
        this.isConnected = false;
        this.o.handlers.onDisconnected(reason);
      }
      if (this.closed) return;
      this.o.observer.reconnect(this.o.venue);
      this.retry = setTimeout(() => this.open(), backoffMs(this.attempt++));
    };
    ws.on('open', () => {
      this.o.subscribe(ws);
      this.isConnected = true;
      this.alive(ws, end);
      this.pinger = setInterval(() => this.o.ping(ws), Math.max(50, Math.min(this.o.pingEveryMs ?? Infinity, this.o.timeoutMs / 3)));
      this.o.handlers.onConnected();
    });
    ws.on('message', (data) => {
      this.attempt = 0; // data flows: the next drop starts the backoff afresh
      this.alive(ws, end);
      let msg: unknown;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        this.o.observer.rejected(this.o.venue, 'schema', 'socket message is not JSON');
        return;
      }
      this.o.onMessage(msg);
    });
    ws.on('pong', () => this.alive(ws, end));
    ws.on('ping', () => this.alive(ws, end));
    ws.on('close', (code, reason) => end(`closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`));
    ws.on('error', (err) => end(err.message));
    ws.on('unexpected-response', (_req, res) => end(`handshake refused (HTTP ${res.statusCode})`));
  }

  /** Any frame proves the socket alive: restart the silence timer. */
  private alive(ws: WebSocket, end: (reason: string) => void): void {
    clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      if (this.ws === ws) end(`silent for ${this.o.timeoutMs} ms`);
    }, this.o.timeoutMs);
  }

  private stopTimers(): void {
    clearTimeout(this.silence);
    clearInterval(this.pinger);
  }
}
