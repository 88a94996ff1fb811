/**
 * The simulator's one HTTP server, by path prefix: /hl is Hyperliquid (POST /hl/info,
 * WebSocket /hl/ws), /binance is Binance (GET /binance/api/v3/..., WebSockets
 * /binance/stream?streams=<a>/<b> and /binance/ws/<stream>), /usdm is Binance USD-M (GET
 * /usdm/fapi/v1/..., WebSocket /usdm/stream?streams=...), /bybit is Bybit (GET
 * /bybit/v5/market/..., WebSocket /bybit/v5/public/linear). Every REST answer is logged, then
 * sent after the venue's latency.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { BinanceRest } from './binance-rest';
import { serveBinanceSocket } from './binance-ws';
import type { BybitRest } from './bybit-rest';
import { serveBybitSocket } from './bybit-ws';
import { serveHyperliquid } from './hyperliquid-rest';
import { serveHyperliquidSocket } from './hyperliquid-ws';
import type { Served } from './rest';
import type { SocketDeps } from './sockets';
import type { SimVenue } from './venues';

export const PREFIX: Record<SimVenue, string> = { hyperliquid: '/hl', binance: '/binance', 'binance-perp': '/usdm', bybit: '/bybit' };

/** Bybit's public linear stream, the path its URL names in full. */
export const BYBIT_STREAM_PATH = '/v5/public/linear';

export interface RouteDeps extends SocketDeps {
  binanceRest: BinanceRest;
  binancePerpRest: BinanceRest;
  bybitRest: BybitRest;
  pingIntervalMs: number;
  record(venue: SimVenue, served: Served): void;
  /** Runs `send` once the venue's latency has passed. */
  afterLatency(venue: SimVenue, send: () => void): void;
}

const urlOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://127.0.0.1');

function venueOf(path: string): SimVenue | undefined {
  return (Object.keys(PREFIX) as SimVenue[]).find((v) => path === PREFIX[v] || path.startsWith(`${PREFIX[v]}/`));
}

export function routeRequest(deps: RouteDeps, req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const url = urlOf(req);
    const venue = venueOf(url.pathname);
    if (venue === undefined) {
      res.writeHead(404).end();
      return;
    }
    const path = url.pathname.slice(PREFIX[venue].length);
    const method = req.method ?? 'GET';
    const served =
      venue === 'hyperliquid'
        ? serveHyperliquid(deps.ctx, method, path, req.headers['content-type'] ?? '', Buffer.concat(chunks).toString('utf8'))
        : { binance: deps.binanceRest, 'binance-perp': deps.binancePerpRest, bybit: deps.bybitRest }[venue].serve(method, path, url.searchParams);
    deps.record(venue, served);
    deps.afterLatency(venue, () => res.writeHead(served.status, served.headers).end(served.body));
  });
}

export function routeUpgrade(deps: RouteDeps, wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const url = urlOf(req);
  const path = url.pathname;
  const accept = (serve: (ws: WebSocket) => void) => wss.handleUpgrade(req, socket, head, serve);
  const rawPrefix = `${PREFIX.binance}/ws`;
  if (path === `${PREFIX.hyperliquid}/ws`) {
    accept((ws) => serveHyperliquidSocket(ws, deps));
  } else if (path === `${PREFIX.bybit}${BYBIT_STREAM_PATH}`) {
    accept((ws) => serveBybitSocket(ws, deps));
  } else if (path === `${PREFIX.binance}/stream` || path === `${PREFIX['binance-perp']}/stream`) {
    const venue = path === `${PREFIX.binance}/stream` ? 'binance' : 'binance-perp';
    const streams = (url.searchParams.get('streams') ?? '').split('/').filter(Boolean);
    accept((ws) => serveBinanceSocket(ws, deps, { venue, streams, combined: true, pingIntervalMs: deps.pingIntervalMs }));
  } else if (path === rawPrefix || path.startsWith(`${rawPrefix}/`)) {
    const streams = path.slice(rawPrefix.length).split('/').filter(Boolean);
    accept((ws) => serveBinanceSocket(ws, deps, { venue: 'binance', streams, combined: false, pingIntervalMs: deps.pingIntervalMs }));
  } else {
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  }
}
