/**
 * Where the fast 304 remembers the ETag sent for a page at a watermark (page-tags.service.ts):
 * Redis when configured (shared by every gateway), else this process's memory. A cache that
 * cannot answer is a miss: the page is then read and hashed as before, never refused.
 */
import type { Redis } from 'ioredis';
import type { RedisClients } from '../runtime/redis-clients';

export interface TagCache {
  readonly kind: 'memory' | 'redis';
  /** The tag remembered under `key`, or null. */
  get(key: string): Promise<string | null>;
  set(key: string, tag: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a remembered tag lives without being asked for again (a moved watermark orphans it anyway). */
export const TAG_TTL_S = 86_400;

/** In memory, least recently used out past `capacity` entries. */
export class MemoryTagCache implements TagCache {
  readonly kind = 'memory';
  private readonly entries = new Map<string, string>();

  constructor(private readonly capacity = 10_000) {}

  async get(key: string): Promise<string | null> {
    const tag = this.entries.get(key);
    if (tag === undefined) return null;
    this.entries.delete(key);
    this.entries.set(key, tag);
    return tag;
  }

  async set(key: string, tag: string): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, tag);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  async close(): Promise<void> {}
}

/**
 * In Redis, shared by every gateway, with this process's recent entries in front: a key names one
 * page's content (its watermark included), so its tag never changes and a local copy never goes stale.
 */
export class RedisTagCache implements TagCache {
  readonly kind = 'redis';
  private readonly redis: Redis;
  private readonly local = new MemoryTagCache();

  constructor(
    private readonly clients: RedisClients,
    private readonly prefix = 'mds:etag:',
    commandTimeoutMs = 250,
  ) {
    this.redis = clients.connect({ enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: commandTimeoutMs, enableAutoPipelining: true });
  }

  async get(key: string): Promise<string | null> {
    const local = await this.local.get(key);
    if (local !== null || this.redis.status !== 'ready') return local;
    try {
      const tag = await this.redis.getex(this.prefix + key, 'EX', TAG_TTL_S);
      if (tag !== null) await this.local.set(key, tag);
      return tag;
    } catch {
      return null;
    }
  }

  async set(key: string, tag: string): Promise<void> {
    await this.local.set(key, tag);
    if (this.redis.status !== 'ready') return;
    try {
      await this.redis.set(this.prefix + key, tag, 'EX', TAG_TTL_S);
    } catch {
      // Not remembered: the next revalidation reads the page.
    }
  }

  async close(): Promise<void> {
    await this.clients.close(this.redis);
  }
}
