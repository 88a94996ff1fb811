/**
 * What the processes share through Redis when it is configured, else hold in memory: the quota
 * counters, the remembered page tags and the event bus.
 */
import type { Config } from '../config';
import { DependencyState, type DependencyEvent } from '../domain/dependency-state';
import type { Logger } from '../logger';
import { MemoryEventBus, type EventBus } from '../services/events/market-events';
import { RedisEventBus } from '../services/events/redis.event-bus';
import { MemoryQuotaStore } from '../services/quota/memory.quota-store';
import type { QuotaStore } from '../services/quota/quota-store';
import { RedisQuotaStore } from '../services/quota/redis.quota-store';
import { MemoryTagCache, RedisTagCache, type TagCache } from '../services/reads/tag-cache';
import { RedisClients } from '../services/runtime/redis-clients';
import type { OpenOptions } from '../composition';
import type { Storage } from './storage';

export interface SharedRedis {
  quotaStore: QuotaStore;
  tagCache: TagCache;
  bus: EventBus;
  /** The bus, the quota store, then the tag cache. */
  close(): Promise<void>;
}

export interface SharedRedisDeps {
  config: Config;
  opts: Pick<OpenOptions, 'quotaPrefix' | 'eventPrefix'>;
  storage: Pick<Storage, 'store' | 'replicas'>;
  logger: Logger;
  onOutage: (e: DependencyEvent) => void;
  clock: () => number;
}

export function openSharedRedis({ config, opts, storage, logger, onOutage, clock }: SharedRedisDeps): SharedRedis {
  // Quotas and events share one view of Redis: its outage is logged once, not per client or attempt.
  const redis = config.redis ? new RedisClients(config.redis, new DependencyState('redis', onOutage)) : undefined;
  const quotaStore: QuotaStore = redis ? new RedisQuotaStore({ clients: redis, prefix: opts.quotaPrefix }) : new MemoryQuotaStore(clock);
  const tagCache: TagCache = redis ? new RedisTagCache(redis, `${opts.quotaPrefix ?? 'mds:'}etag:`) : new MemoryTagCache();
  const bus: EventBus = redis
    ? new RedisEventBus({ clients: redis, prefix: opts.eventPrefix ?? opts.quotaPrefix, onError: (err) => logger.warn({ err }, 'event bus: a message that is not an event') })
    : new MemoryEventBus();
  // Read-your-writes: the commit position of every event this process hears keeps its reads on
  // the primary until the replicas have replayed it (the ones it publishes: EventPublisher).
  if (storage.replicas) bus.listen((e) => storage.store.readAfter(e.lsn));
  return {
    quotaStore,
    tagCache,
    bus,
    async close() {
      await bus.close();
      await quotaStore.close();
      await tagCache.close();
    },
  };
}
