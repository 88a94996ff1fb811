/**
 * The simulator's open WebSocket connections per venue: counted, silenced on demand (no data,
 * no pings, no pongs: the ws server runs with autoPong off and ping frames are answered here),
 * dropped on demand.
 */
import WebSocket from 'ws';
import type { ContextFeed } from './context-feed';
import type { Faults } from './faults';
import type { LiveFeed } from './live-feed';
import type { SimContext } from './rest';
import { VENUES, perVenue, type SimVenue } from './venues';

/** What a venue's socket handler works with. */
export interface SocketDeps {
  ctx: SimContext;
  feed: LiveFeed;
  /** The context pushes: Hyperliquid's asset contexts, Bybit's tickers. */
  contexts: ContextFeed;
  sockets: SimSockets;
}

export class SimSockets {
  private readonly open: Record<SimVenue, Set<WebSocket>> = perVenue(() => new Set<WebSocket>());
  private readonly accepted: Record<SimVenue, number> = perVenue(() => 0);

  constructor(private readonly faults: Faults) {}

  /** Counts a new connection, answers its ping frames while the venue speaks, forgets it on close. */
  register(venue: SimVenue, ws: WebSocket, onClose: () => void): void {
    this.open[venue].add(ws);
    this.accepted[venue] += 1;
    ws.on('ping', (data) => {
      if (!this.faults.silent[venue]) ws.pong(data);
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      this.open[venue].delete(ws);
      onClose();
    });
  }

  isSilent(venue: SimVenue): boolean {
    return this.faults.silent[venue];
  }

  /** Sends a text frame unless the venue is silent or the socket is gone. */
  send(venue: SimVenue, ws: WebSocket, text: string): void {
    if (!this.faults.silent[venue] && ws.readyState === WebSocket.OPEN) ws.send(text);
  }

  counts(venue: SimVenue): { open: number; accepted: number } {
    return { open: this.open[venue].size, accepted: this.accepted[venue] };
  }

  /** Terminates every connection of the venue (counted as closed at once). */
  drop(venue: SimVenue): void {
    for (const ws of this.open[venue]) ws.terminate();
    this.open[venue].clear();
  }

  dropAll(): void {
    for (const venue of VENUES) this.drop(venue);
  }
}
