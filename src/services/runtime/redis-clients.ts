/**
 * Every Redis client of a process is built here, from one set of options: to REDIS_URL's server,
 * or through Redis Sentinel to whichever node is master now (asked again at every reconnect, and
 * left at the sentinels' +switch-master or a READONLY answer from a demoted master).
 * The clients are one dependency: an outage is told once when the first of them fails and once
 * when all are ready again (DependencyState), not once per reconnect attempt. A client lives until
 * `close`: one that ioredis ends by itself is connected again.
 */
import Redis, { type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../../config';
import { DependencyState } from '../../domain/dependency-state';

/** Longest wait for a TCP (or TLS) connection to Redis or to a sentinel. */
const CONNECT_TIMEOUT_MS = 2_000;
/** Longest wait for a sentinel's answer: a silent one is skipped for the next. */
const SENTINEL_COMMAND_TIMEOUT_MS = 1_000;

/** Try again soon, then every second at most: a promoted master is reached within a second. */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1_000);

/** A write refused by a replica: the node this connection reached is no longer the master. */
export const isReadOnlyError = (err: Error) => err.message.includes('READONLY');

/**
 * The ioredis options of a client of `target`, with `tuning` (queueing, timeouts) over the shared
 * ones. REDIS_URL itself is given to ioredis beside them (see `RedisClients.connect`).
 */
export function redisOptions(target: RedisTarget, tuning: RedisOptions = {}): RedisOptions {
  const shared: RedisOptions = {
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy,
    // The failed call is refused (503) rather than sent again: the caller decides what to repeat.
    reconnectOnError: (err) => isReadOnlyError(err),
    ...tuning,
  };
  if (target.sentinels.length === 0) return shared;
  // rediss: means TLS to the master and to the sentinels alike.
  const tls = target.url?.startsWith('rediss:') ? {} : undefined;
  return {
    ...shared,
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.sentinelMaster,
    sentinelPassword: target.sentinelPassword,
    sentinelCommandTimeout: SENTINEL_COMMAND_TIMEOUT_MS,
    sentinelRetryStrategy: retryStrategy,
    // Leave a master the moment the sentinels announce its successor: a master failed over by hand
    // stays up and writable until the sentinels demote it, and counts written there are lost.
    failoverDetector: true,
    enableTLSForSentinelMode: tls !== undefined,
    sentinelTLS: tls,
  };
}

export class RedisClients {
  private readonly open = new Set<Redis>();
  private readonly closed = new WeakSet<Redis>();

  constructor(
    readonly target: RedisTarget,
    private readonly state = new DependencyState('redis', () => undefined),
  ) {}

  /** A new client, watched: its connection errors count as failures, its return as a success. */
  connect(tuning: RedisOptions): Redis {
    const options = redisOptions(this.target, tuning);
    // With sentinels the URL's host is not used: ioredis takes its password, database and TLS.
    const client = this.target.url === undefined ? new Redis(options) : new Redis(this.target.url, options);
    this.open.add(client);
    client.on('error', (err: unknown) => this.failed(err));
    client.on('ready', () => this.succeeded());
    client.on('end', () => this.ended(client));
    return client;
  }

  /** Close a client for good (after a QUIT, with `quit`): the only way one stays ended. */
  async close(client: Redis, { quit = false } = {}): Promise<void> {
    this.closed.add(client);
    if (quit) await client.quit().catch(() => undefined);
    client.disconnect();
  }

  /**
   * ioredis ends a sentinel client for good when the sentinels' +switch-master reaches its
   * failover detector while a reconnect is asking a sentinel for the master: the detector's
   * disconnect aborts that reconnect, and nothing starts another. Unless closed here, connect again.
   */
  private ended(client: Redis): void {
    if (this.closed.has(client)) {
      this.open.delete(client);
      return;
    }
    setTimeout(() => {
      if (client.status === 'end' && !this.closed.has(client)) client.connect().catch(() => undefined);
    }, retryStrategy(1)).unref();
  }

  /** A connection or a call failed. */
  failed(err: unknown): void {
    this.state.failed(err);
  }

  /** A call was answered: the outage ends once every open client is ready, not at the first one back. */
  succeeded(): void {
    if (!this.state.isDown) return;
    for (const c of this.open) if (c.status !== 'ready') return;
    this.state.succeeded();
  }
}
