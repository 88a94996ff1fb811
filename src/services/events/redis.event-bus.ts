/**
 * The event bus over Redis pub/sub (REDIS_URL): one channel for every market event, so every
 * gateway instance hears what any process (another instance's ingestion, an `mds import`)
 * stored. The subscriber connection is opened on the first `listen` (an `mds` command only
 * publishes) and resubscribes by itself after a reconnect. Events published while Redis is
 * down are lost, never the data: subscribers see the next ones (docs/DECISIONS.md).
 */
import Redis from 'ioredis';
import type { EventBus, MarketEvent } from './market-events';

export interface RedisEventBusOptions {
  url: string;
  /** Channel prefix, so deployments (or test runs) can share one Redis. */
  prefix?: string;
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
    this.publisher = new Redis(opts.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, retryStrategy: (n) => Math.min(n * 100, 1_000) });
    this.publisher.on('error', () => undefined);
  }

  async publish(event: MarketEvent): Promise<void> {
    await this.publisher.publish(this.channel, JSON.stringify(event));
  }

  listen(handler: (event: MarketEvent) => void): () => void {
    this.handlers.add(handler);
    if (!this.subscriber) {
      const sub = new Redis(this.opts.url, { maxRetriesPerRequest: null, connectTimeout: 2_000, retryStrategy: (n) => Math.min(n * 100, 1_000) });
      sub.on('error', (err) => this.opts.onError?.(err));
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
      void sub.subscribe(this.channel).catch((err: unknown) => this.opts.onError?.(err));
      this.subscriber = sub;
    }
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    // QUIT waits for an answer; to a Redis that is down it would wait (queued) forever.
    const end = (c: Redis | undefined) => (c?.status === 'ready' ? c.quit().then(() => undefined, () => c.disconnect()) : c?.disconnect());
    await Promise.all([end(this.publisher), end(this.subscriber)]);
  }
}
