/** Dependency checks behind GET /health. Each check is bounded so /health never hangs. */
import type { Store } from '../db/store';

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

/** A check: resolves (with details) when its dependency answers. */
export type HealthCheck = () => Promise<Record<string, unknown> | void>;

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
    return { status: 'ok', latencyMs: Math.round(performance.now() - started), details: extra ?? {} };
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

export class HealthService {
  private readonly checks: Record<string, HealthCheck> = {};
  private readonly optional = new Set<string>();

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

  async report(): Promise<HealthReport> {
    const names = Object.keys(this.checks);
    const results = await Promise.all(names.map((n) => timed(this.checks[n])));
    for (const [i, n] of names.entries()) if (this.optional.has(n) && results[i].status === 'unavailable') results[i].status = 'degraded';
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i]]));
    const status = results.every((r) => r.status !== 'unavailable') ? 'ok' : 'unavailable';
    return { status, checks, version: this.version };
  }
}
