/**
 * Read replicas (DATABASE_REPLICA_URLS): the API's data reads on streaming standbys of the primary
 * while they are recent enough (docs/ARCHITECTURE.md, Read replicas). Positions are probed every
 * second, each on a connection of its own, so a burst of reads holding every pooled connection
 * cannot make a healthy replica look stale. A statement that fails because of its replica runs
 * again on the primary. Per statement the only added work is picking the pool: a time and a
 * position compared per replica, round robin among those that qualify.
 */
import { performance } from 'node:perf_hooks';
import { AppError } from '../domain/errors';
import type { QueryOptions, Row, SqlSession } from './database';
import { createPostgresReader, type PostgresReader } from './postgres.database';
import type { PrimaryLocator } from './primary-locator';

export const POLL_INTERVAL_MS = 1_000;
/** Longest wait for a position (connection included): a slower server is treated as unreachable for that round. */
const PROBE_TIMEOUT_MS = 1_000;

/** A WAL position (`16/B374D848`) as a number of bytes. */
export function parseLsn(text: string): bigint {
  const slash = text.indexOf('/');
  if (slash < 1 || !/^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/.test(text)) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export type ReplicaState = 'starting' | 'serving' | 'catching_up' | 'lagging' | 'unreachable' | 'not_standby';

/** What /health and /metrics say of one replica. */
export interface ReplicaStatus {
  /** host:port/database (no credentials). */
  name: string;
  /**
   * serving; catching_up (recent enough, but behind an event this process published or heard:
   * reads on the primary until it replays it); lagging (behind REPLICA_MAX_LAG); unreachable;
   * not_standby (the server is not in recovery); starting (not probed yet).
   */
  state: ReplicaState;
  /** How far behind the primary's newest sampled position it is, in seconds of sampling (null: unknown). */
  lagSeconds: number | null;
  replayLsn: string | null;
  /** Statements it answered, and those that failed on it and ran on the primary instead. */
  reads: number;
  fallbacks: number;
  error?: string;
}

export interface RouterStats {
  replicas: ReplicaStatus[];
  /** Statements of the read facet run on the primary (no replica qualified, or a fallback). */
  primaryReads: number;
  /** The newest position published or heard by this process (read-your-writes). */
  newestEventLsn: string | null;
}

interface Replica {
  name: string;
  reads: PostgresReader;
  probe: PostgresReader;
  probing: boolean;
  probed: boolean;
  standby: boolean;
  replayed: bigint;
  /** performance.now() until which it may serve (0: not now). */
  freshUntil: number;
  /** When the newest primary sample it has replayed was taken (null: none known). */
  reachedAt: number | null;
  error: string | undefined;
  served: number;
  fallbacks: number;
}

export interface ReplicaRouterOptions {
  /** The primary's URL (positions are sampled on a connection of their own) and the replicas'. */
  primaryUrl: string;
  /** The primary's host as the database located it: the sampler follows it through a failover. */
  primaryLocator?: PrimaryLocator;
  urls: readonly string[];
  maxLagMs: number;
  /** Each replica's pool of read connections (DATABASE_POOL_SIZE), and the timeouts of every pool. */
  poolSize: number;
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
}

/** host:port/database of a PostgreSQL URL, without credentials. */
export function serverName(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname === '/' ? '' : u.pathname}`;
}

/** A failure of the replica rather than of the statement: retried on the primary. */
function replicaFailed(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'SERVICE_UNAVAILABLE';
  // 40001 / 40P01 on a standby: "canceling statement due to conflict with recovery".
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

export class ReplicaRouter {
  /** The statements of the read facet: each on a qualifying replica, else on the primary. */
  readonly session: SqlSession;
  private readonly replicas: Replica[];
  private readonly sampler: PostgresReader;
  /** The primary's positions of the last REPLICA_MAX_LAG (and a little more), oldest first. */
  private samples: Array<{ at: number; lsn: bigint }> = [];
  private seen = -1n;
  private next = 0;
  private primaryReads = 0;
  private sampling = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly primary: Pick<SqlSession, 'query'>,
    private readonly opts: ReplicaRouterOptions,
  ) {
    const pool = (url: string, poolSize: number, probe: boolean): PostgresReader =>
      createPostgresReader({
        url,
        poolSize,
        connectionTimeoutMs: probe ? Math.min(opts.connectTimeoutMs ?? PROBE_TIMEOUT_MS, PROBE_TIMEOUT_MS) : opts.connectTimeoutMs,
        queryTimeoutMs: opts.queryTimeoutMs,
      });
    this.sampler = createPostgresReader({ url: opts.primaryUrl, poolSize: 1, connectionTimeoutMs: Math.min(opts.connectTimeoutMs ?? PROBE_TIMEOUT_MS, PROBE_TIMEOUT_MS), queryTimeoutMs: opts.queryTimeoutMs, locator: opts.primaryLocator });
    // A new primary (a failover) has positions of its own: what was sampled or seen before says nothing of it.
    opts.primaryLocator?.onChange(() => {
      this.samples = [];
      this.seen = -1n;
    });
    this.replicas = opts.urls.map((url) => ({
      name: serverName(url),
      reads: pool(url, opts.poolSize, false),
      probe: pool(url, 1, true),
      probing: false,
      probed: false,
      standby: false,
      replayed: -1n,
      freshUntil: 0,
      reachedAt: null,
      error: undefined,
      served: 0,
      fallbacks: 0,
    }));
    const query = <R extends object = Row>(text: string, params?: unknown[], qo?: QueryOptions): Promise<R[]> => this.query<R>(text, params, qo);
    this.session = {
      query,
      exec: () => Promise.reject(new Error('the read facet runs single statements only')),
      copyFrom: () => Promise.reject(new Error('the read facet runs single statements only')),
    };
  }

  /** Poll the positions every second from now on (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), POLL_INTERVAL_MS);
    this.timer.unref();
    void this.poll();
  }

  /** An event's commit position, published or heard: reads stay on the primary until replicas replay it. */
  saw(lsn: string | null | undefined): void {
    if (!lsn) return;
    let at: bigint;
    try {
      at = parseLsn(lsn);
    } catch {
      return;
    }
    if (at > this.seen) this.seen = at;
  }

  /** The replica for the next statement, round robin among those that qualify; null: the primary. */
  private pick(): Replica | null {
    const n = this.replicas.length;
    const now = performance.now();
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n];
      if (r.freshUntil > now && r.replayed >= this.seen) {
        this.next = (this.next + i + 1) % n;
        return r;
      }
    }
    return null;
  }

  private async query<R extends object>(text: string, params?: unknown[], qo?: QueryOptions): Promise<R[]> {
    const r = this.pick();
    if (r === null) {
      this.primaryReads++;
      return this.primary.query<R>(text, params, qo);
    }
    try {
      const rows = await r.reads.query<R>(text, params, qo);
      r.served++;
      return rows;
    } catch (err) {
      if (!replicaFailed(err)) throw err;
      r.fallbacks++;
      this.out(r, err);
      this.primaryReads++;
      return this.primary.query<R>(text, params, qo);
    }
  }

  /** Take a replica out of the rotation until a probe finds it well. */
  private out(r: Replica, err: unknown): void {
    r.freshUntil = 0;
    const cause = err instanceof AppError && err.cause instanceof Error ? err.cause : err;
    r.error = (cause as Error)?.message?.split('\n')[0] ?? String(cause);
  }

  /** One round: the primary's position, then every replica's (a probe still running is left alone). */
  async poll(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    try {
      const [row] = await this.sampler.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn', [], { timeoutMs: PROBE_TIMEOUT_MS });
      const at = performance.now();
      this.samples.push({ at, lsn: parseLsn(row.lsn) });
      // Kept: what the bound can still need, and two rounds more.
      const keepFrom = at - this.opts.maxLagMs - 2 * POLL_INTERVAL_MS;
      let drop = 0;
      while (drop < this.samples.length - 1 && this.samples[drop].at < keepFrom) drop++;
      if (drop) this.samples = this.samples.slice(drop);
    } catch {
      // The primary did not answer: no new sample, so the replicas age out within REPLICA_MAX_LAG.
    } finally {
      this.sampling = false;
    }
    await Promise.all(this.replicas.filter((r) => !r.probing).map((r) => this.probe(r)));
  }

  private async probe(r: Replica): Promise<void> {
    r.probing = true;
    try {
      const [row] = await r.probe.query<{ standby: boolean; lsn: string | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn',
        [],
        { timeoutMs: PROBE_TIMEOUT_MS },
      );
      r.probed = true;
      r.error = undefined;
      r.standby = row.standby && row.lsn !== null;
      if (!r.standby) {
        r.freshUntil = 0;
        return;
      }
      r.replayed = parseLsn(row.lsn!);
      // The newest sample it has replayed: positions only grow, so search from the newest.
      for (let i = this.samples.length - 1; i >= 0; i--) {
        if (this.samples[i].lsn <= r.replayed) {
          r.reachedAt = Math.max(r.reachedAt ?? 0, this.samples[i].at);
          break;
        }
      }
      r.freshUntil = r.reachedAt === null ? 0 : r.reachedAt + this.opts.maxLagMs;
    } catch (err) {
      r.probed = true;
      this.out(r, err);
    } finally {
      r.probing = false;
    }
  }

  stats(): RouterStats {
    const now = performance.now();
    const newest = this.samples.at(-1)?.at ?? null;
    return {
      primaryReads: this.primaryReads,
      newestEventLsn: this.seen < 0n ? null : formatLsn(this.seen),
      replicas: this.replicas.map((r) => {
        const state: ReplicaState = !r.probed
          ? 'starting'
          : r.error !== undefined
            ? 'unreachable'
            : !r.standby
              ? 'not_standby'
              : r.freshUntil <= now
                ? 'lagging'
                : r.replayed < this.seen
                  ? 'catching_up'
                  : 'serving';
        const known = r.standby && r.error === undefined && r.reachedAt !== null && newest !== null;
        return {
          name: r.name,
          state,
          lagSeconds: known ? Math.max(0, newest - r.reachedAt!) / 1000 : null,
          replayLsn: r.replayed < 0n ? null : formatLsn(r.replayed),
          reads: r.served,
          fallbacks: r.fallbacks,
          ...(r.error === undefined ? {} : { error: r.error }),
        };
      }),
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([this.sampler.close(), ...this.replicas.flatMap((r) => [r.reads.close(), r.probe.close()])]);
  }
}
