/** Dependency checks behind GET /health. Each check is bounded so /health never hangs. */
import type { Database } from '../db/database';

export interface CheckResult {
  status: 'ok' | 'unavailable';
  latency_ms?: number;
  error?: string;
  [extra: string]: unknown;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, CheckResult>;
  version: string;
}

export type HealthCheck = () => Promise<Omit<CheckResult, 'status' | 'latency_ms'> | void>;

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
    return { status: 'ok', latency_ms: Math.round(performance.now() - started), ...(extra ?? {}) };
  } catch (err) {
    return { status: 'unavailable', error: (err as Error).message.split('\n')[0] };
  } finally {
    clearTimeout(timer);
  }
}

export class HealthService {
  private readonly checks: Record<string, HealthCheck> = {};

  constructor(
    db: Database,
    private readonly version: string,
  ) {
    this.checks.database = async () => {
      // The statement itself gives up with the check, so probes of a silent server do not pile up.
      await db.query('SELECT 1', [], { timeoutMs: CHECK_TIMEOUT_MS });
      return { kind: db.kind };
    };
  }

  /** Add a dependency (the quota store registers itself here). */
  register(name: string, check: HealthCheck): void {
    this.checks[name] = check;
  }

  async report(): Promise<HealthReport> {
    const names = Object.keys(this.checks);
    const results = await Promise.all(names.map((n) => timed(this.checks[n])));
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i]]));
    const status = results.every((r) => r.status === 'ok') ? 'ok' : 'unavailable';
    return { status, checks, version: this.version };
  }
}
