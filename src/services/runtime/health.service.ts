/** Dependency checks behind GET /health. Each check is bounded so /health never hangs. */
import type { RouterStats } from '../../db/replica-router';
import type { Store } from '../../db/store';

export interface CheckResult {
  status: 'ok' | 'unavailable' | 'degraded';
  latencyMs?: number;
  error?: string;
  /** What the check adds about its dependency (e.g. `kind`). */
  details?: Record<string, unknown>;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, CheckResult>;
  version: string;
}

/**
 * What a check answers when its dependency is only partly there (a replica out of the
 * rotation): `degraded`, with its details, and never a 503.
 */
export class Degraded {
  constructor(
    readonly reason: string,
    readonly details: Record<string, unknown>,
  ) {}
}

/** A check: resolves (with details) when its dependency answers. */
export type HealthCheck = () => Promise<Record<string, unknown> | Degraded | void>;

const CHECK_TIMEOUT_MS = 2_000;

async function timed(check: HealthCheck): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const extra = await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    const latencyMs = Math.round(performance.now() - started);
    if (extra instanceof Degraded) return { status: 'degraded', latencyMs, error: extra.reason, details: extra.details };
    return { status: 'ok', latencyMs, details: extra ?? {} };
  } catch (err) {
    return { status: 'unavailable', error: (err as Error).message.split('\n')[0] };
  } finally {
    clearTimeout(timer);
  }
}

export interface CheckOptions {
  /** A failing critical check makes /health a 503; a non-critical one only shows in its entry (default true). */
  critical?: boolean;
}

/** GET /health/ready: ready while every critical dependency answers and the process is not draining. */
export interface Readiness {
  status: 'ready' | 'draining' | 'unavailable';
  report: HealthReport | null;
}

export class HealthService {
  private readonly checks: Record<string, HealthCheck> = {};
  private readonly optional = new Set<string>();
  private draining = false;

  constructor(
    store: Pick<Store, 'ping' | 'kind'>,
    private readonly version: string,
  ) {
    this.checks.database = async () => {
      // The statement itself gives up with the check, so probes of a silent server do not pile up.
      await store.ping(CHECK_TIMEOUT_MS);
      return { kind: store.kind };
    };
  }

  /** Add a dependency (the quota store registers itself here). */
  register(name: string, check: HealthCheck, opts: CheckOptions = {}): void {
    this.checks[name] = check;
    if (opts.critical === false) this.optional.add(name);
  }

  /** From now on the instance is going away: readiness says so, whatever its dependencies. */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async readiness(): Promise<Readiness> {
    if (this.draining) return { status: 'draining', report: null };
    const report = await this.report();
    return { status: this.draining ? 'draining' : report.status === 'ok' ? 'ready' : 'unavailable', report };
  }

  async report(): Promise<HealthReport> {
    const names = Object.keys(this.checks);
    const results = await Promise.all(names.map((n) => timed(this.checks[n])));
    for (const [i, n] of names.entries()) if (this.optional.has(n) && results[i].status === 'unavailable') results[i].status = 'degraded';
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i]]));
    const status = results.every((r) => r.status !== 'unavailable') ? 'ok' : 'unavailable';
    return { status, checks, version: this.version };
  }
}

/**
 * The `replicas` entry of /health: every replica's state, lag and replay position; degraded
 * while one is out of the rotation (unreachable, lagging, not a standby), its reads then on the
 * primary.
 */
export function replicaHealth(stats: RouterStats): Record<string, unknown> | Degraded {
  const details = {
    primary_reads: stats.primaryReads,
    newest_event_lsn: stats.newestEventLsn,
    replicas: stats.replicas.map((r) => ({
      name: r.name,
      state: r.state,
      lag_seconds: r.lagSeconds,
      replay_lsn: r.replayLsn,
      reads: r.reads,
      fallbacks: r.fallbacks,
      ...(r.error === undefined ? {} : { error: r.error }),
    })),
  };
  const out = stats.replicas.filter((r) => r.state === 'unreachable' || r.state === 'lagging' || r.state === 'not_standby');
  return out.length ? new Degraded(out.map((r) => `${r.name} ${r.state.replace('_', ' ')}`).join('; '), details) : details;
}
