/**
 * The event bus over Redis pub/sub (REDIS_URL or REDIS_SENTINELS): one channel for every market
 * event, so every gateway instance hears what any process (another instance's ingestion, an
 * `mds import`) stored. The subscriber connection is opened on the first `listen` (an `mds`
 * command only publishes) and resubscribes by itself after a reconnect. Events published while
 * Redis is down are lost, never the data: subscribers see the next ones (docs/DECISIONS.md).
 */
import type Redis from 'ioredis';
import type { RedisClients } from '../runtime/redis-clients';
import type { EventBus, MarketEvent } from './market-events';

export interface RedisEventBusOptions {
  clients: RedisClients;
  /** Channel prefix, so deployments (or test runs) can share one Redis. */
  prefix?: string;
  /** A message on the channel that is not an event (Redis being away is the clients' to tell). */
  onError?: (err: unknown) => void;
}

export class RedisEventBus implements EventBus {
  readonly kind = 'redis';
  private readonly channel: string;
  private readonly publisher: Redis;
  private subscriber: Redis | undefined;
  private readonly handlers = new Set<(event: MarketEvent) => void>();

  constructor(private readonly opts: RedisEventBusOptions) {
    this.channel = `${opts.prefix ?? 'mds:'}events`;
    this.publisher = opts.clients.connect({ maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1_000 });
  }

  async publish(event: MarketEvent): Promise<void> {
    try {
      await this.publisher.publish(this.channel, JSON.stringify(event));
    } catch (err) {
      this.opts.clients.failed(err);
      throw err;
    }
    this.opts.clients.succeeded();
  }

  listen(handler: (event: MarketEvent) => void): () => void {
    this.handlers.add(handler);
    if (!this.subscriber) {
      const sub = this.opts.clients.connect({ maxRetriesPerRequest: null });
      sub.on('message', (channel: string, text: string) => {
        if (channel !== this.channel) return;
        let event: MarketEvent;
        try {
          event = JSON.parse(text) as MarketEvent;
        } catch (err) {
          this.opts.onError?.(err);
          return;
        }
        for (const h of this.handlers) h(event);
      });
      // ioredis subscribes again by itself after a reconnect.
      void sub.subscribe(this.channel).catch((err: unknown) => this.opts.clients.failed(err));
      this.subscriber = sub;
    }
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    // The subscriber has nothing to flush, and a QUIT queued behind its offline SUBSCRIBE would
    // wait for Redis for ever; the publisher's QUIT is bounded by its command timeout. Only
    // disconnect() also closes the sentinel connections that watch for a failover.
    if (this.subscriber) await this.opts.clients.close(this.subscriber);
    await this.opts.clients.close(this.publisher, { quit: true });
  }
}
