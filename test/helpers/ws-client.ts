/**
 * A graphql-ws client over a real WebSocket for the subscription tests: what a dashboard's
 * client does (graphql-ws's own createClient on the `ws` package), with every message a
 * subscription gets kept for the test to read.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Json } from './json';
import { pollUntil } from './wait';

/** Wait until `cond` holds (every 20 ms, at most `withinMs`); whether it did. */
export const eventually = (cond: () => boolean, withinMs = 10_000) => pollUntil(async () => cond(), (v) => v, { withinMs, everyMs: 20 });

export interface Received {
  next: Json[];
  errors: Json[];
  completed: boolean;
}

export interface WsSession {
  client: Client;
  /** The socket's close code and reason, once closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Subscribe and collect; `stop()` completes it from the client side. */
  subscribe(query: string, variables?: Record<string, unknown>): Received & { stop(): void };
  /** One operation to its end (a query, or a subscription the server refuses). */
  once(query: string, variables?: Record<string, unknown>): Promise<Received>;
  close(): Promise<void>;
}

/** Connect to `<http url>/graphql` with the key in connection_init (or only in `headers`). */
export function connectWs(httpUrl: string, apiKey: string | undefined, headers: Record<string, string> = {}): WsSession {
  let resolveClosed: (v: { code: number; reason: string }) => void = () => undefined;
  const closed = new Promise<{ code: number; reason: string }>((r) => (resolveClosed = r));
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  const client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WithHeaders,
    connectionParams: apiKey === undefined ? undefined : { apiKey },
    retryAttempts: 0,
    lazy: false,
    // A close the test provokes is read from `closed`, not printed.
    onNonLazyError: () => undefined,
    on: { closed: (e) => resolveClosed({ code: (e as { code: number }).code, reason: String((e as { reason: string }).reason) }) },
  });
  client.on('error', () => undefined);
  const subscribe = (query: string, variables?: Record<string, unknown>) => {
    const got: Received = { next: [], errors: [], completed: false };
    const stop = client.subscribe(
      { query, variables },
      {
        next: (v) => void got.next.push(v as Json),
        error: (e) => void got.errors.push(e as Json),
        complete: () => void (got.completed = true),
      },
    );
    return Object.assign(got, { stop });
  };
  return {
    client,
    closed,
    subscribe,
    async once(query, variables) {
      const got = subscribe(query, variables);
      await pollUntil(async () => got.completed || got.errors.length > 0, (done) => done, { withinMs: 10_000, everyMs: 20 });
      return got;
    },
    async close() {
      await client.dispose();
    },
  };
}
