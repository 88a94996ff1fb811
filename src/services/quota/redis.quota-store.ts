/**
 * Redis quota store (REDIS_URL or REDIS_SENTINELS): one Lua script checks and increments every
 * window of a call atomically, so quotas hold across any number of gateway instances and
 * concurrent requests.
 * Commands fail fast while Redis is unreachable (no offline queue): the caller answers 503
 * rather than serving unmetered, and the client reconnects by itself.
 */
import type Redis from 'ioredis';
import { windowOf } from '../../domain/quota';
import type { RedisClients } from '../runtime/redis-clients';
import type { ConsumeResult, CounterWindow, QuotaStore } from './quota-store';

// KEYS[i]: counter of window i. ARGV[i]: its limit (-1 = unlimited); ARGV[n+i]: its TTL in ms.
const CONSUME_LUA = `
local n = #KEYS
local counts = {}
local ok = 1
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = c
  local limit = tonumber(ARGV[i])
  if limit >= 0 and c >= limit then ok = 0 end
end
if ok == 1 then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
  end
end
table.insert(counts, 1, ok)
return counts`;

/** Keep a counter this long after its window ends (clock skew between instances). */
const TTL_SLACK_MS = 5_000;
/** How long a request waits for a (re)connecting Redis before it is refused with 503. */
const READY_WAIT_MS = 500;

type ConsumeCommand = (keys: number, ...args: Array<string | number>) => Promise<number[]>;

export interface RedisQuotaOptions {
  clients: RedisClients;
  /** Key prefix, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
  commandTimeoutMs?: number;
}

export class RedisQuotaStore implements QuotaStore {
  readonly kind = 'redis';
  readonly redis: Redis;
  private readonly clients: RedisClients;
  private readonly prefix: string;
  private waiting: Promise<void> | undefined;

  constructor(opts: RedisQuotaOptions) {
    this.prefix = opts.prefix ?? 'mds:q:';
    this.clients = opts.clients;
    this.redis = opts.clients.connect({
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 1_000,
      // Commands issued in the same tick share one write: fewer syscalls under load.
      enableAutoPipelining: true,
    });
    this.redis.defineCommand('mdsConsume', { lua: CONSUME_LUA });
  }

  /** Run a call, telling the clients' dependency state how it went. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.clients.succeeded();
      return result;
    } catch (err) {
      this.clients.failed(err);
      throw err;
    }
  }

  /**
   * Without an offline queue a command fails at once unless the connection is ready; wait a
   * short, bounded time for it (start-up, reconnect) before failing.
   */
  private async ready(): Promise<void> {
    if (this.redis.status === 'ready') return;
    // One shared wait, however many requests are queued behind it.
    this.waiting ??= new Promise<void>((resolve, reject) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        reject(new Error(`redis not connected (${this.redis.status})`));
      }, READY_WAIT_MS);
      this.redis.once('ready', onReady);
    }).finally(() => {
      this.waiting = undefined;
    });
    return this.waiting;
  }

  async consume(id: string, windows: readonly CounterWindow[], nowMs: number): Promise<ConsumeResult> {
    return this.call(() => this.consumeReady(id, windows, nowMs));
  }

  private async consumeReady(id: string, windows: readonly CounterWindow[], nowMs: number): Promise<ConsumeResult> {
    await this.ready();
    const keys: string[] = [];
    const limits: number[] = [];
    const ttls: number[] = [];
    for (const w of windows) {
      const { index, endMs } = windowOf(nowMs, w.ms);
      // {id} is a hash tag: every counter of one caller lives in one cluster slot.
      keys.push(`${this.prefix}{${id}}:${w.name}:${index}`);
      limits.push(w.limit ?? -1);
      ttls.push(endMs - nowMs + TTL_SLACK_MS);
    }
    const run = (this.redis as unknown as { mdsConsume: ConsumeCommand }).mdsConsume;
    const [ok, ...counts] = await run.call(this.redis, keys.length, ...keys, ...limits, ...ttls);
    return { allowed: ok === 1, counts };
  }

  async ping(): Promise<void> {
    await this.call(async () => {
      await this.ready();
      await this.redis.ping();
    });
  }

  async close(): Promise<void> {
    await this.clients.close(this.redis);
  }
}
