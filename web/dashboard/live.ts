/**
 * Live updates over graphql-ws on /graphql: one socket per key (the key in connection_init),
 * one subscription per stream. A bad key closes the socket with 4403 (never retried); a
 * refused subscription (tier, quota, cap) arrives as a graphql-ws error with the service's
 * extensions and leaves the socket open.
 */
import { createClient, type Client } from 'graphql-ws';
import { socketUrl } from '../shared/api-key';
import { apiError, type ApiError } from '../shared/graphql';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'unauthorized' | 'off';

const UNAUTHORIZED = 4403;

function isClose(e: unknown): e is CloseEvent {
  return typeof e === 'object' && e !== null && 'code' in e && typeof (e as CloseEvent).code === 'number';
}

export function liveError(e: unknown): ApiError {
  if (Array.isArray(e)) return apiError(e[0]);
  if (isClose(e)) {
    if (e.code === UNAUTHORIZED) return { message: e.reason && e.reason !== 'UNAUTHORIZED' ? e.reason : 'the API key was refused (invalid or revoked)', code: 'UNAUTHORIZED' };
    return { message: `live connection closed (${e.code}${e.reason ? ` ${e.reason}` : ''})`, code: 'CLOSED' };
  }
  return { message: e instanceof Error ? e.message : 'live connection failed', code: 'CLOSED' };
}

export class Live {
  private readonly client: Client;
  private connectedOnce = false;

  constructor(
    apiKey: string,
    private readonly onStatus: (s: LiveStatus) => void,
    private readonly onFatal: (e: ApiError) => void,
  ) {
    this.client = createClient({
      url: socketUrl('/graphql'),
      connectionParams: { apiKey },
      lazy: true,
      keepAlive: 0,
      retryAttempts: Number.MAX_SAFE_INTEGER,
      shouldRetry: (e) => !(isClose(e) && e.code === UNAUTHORIZED),
      on: {
        connecting: () => this.onStatus(this.connectedOnce ? 'reconnecting' : 'connecting'),
        connected: () => {
          this.connectedOnce = true;
          this.onStatus('live');
        },
        closed: (e) => {
          if (isClose(e) && e.code === UNAUTHORIZED) {
            this.onStatus('unauthorized');
            this.onFatal(liveError(e));
          } else this.onStatus(this.connectedOnce ? 'reconnecting' : 'off');
        },
      },
    });
  }

  /** Subscribe; `next` gets each event's data; returns the unsubscribe. */
  subscribe<T>(query: string, variables: Record<string, unknown>, next: (data: T) => void, onError: (e: ApiError) => void): () => void {
    return this.client.subscribe<T>(
      { query, variables },
      {
        next: (r) => {
          if (r.errors?.length) onError(apiError(r.errors[0] as { message?: unknown; extensions?: Record<string, unknown> }));
          if (r.data) next(r.data as T);
        },
        error: (e) => {
          const err = liveError(e);
          // The socket's own 4403 is reported once, by `closed`.
          if (err.code !== 'UNAUTHORIZED') onError(err);
        },
        complete: () => undefined,
      },
    );
  }

  close(): void {
    this.onStatus('off');
    void this.client.dispose();
  }
}
