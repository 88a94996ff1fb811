/**
 * Whether a dependency (PostgreSQL, Redis) is reachable, told once per change: an outage is
 * reported when the first failure arrives and once more when a call succeeds again, with the
 * failures counted in between, instead of a line (and a stack trace) per failed call.
 */

export type DependencyEvent =
  | { kind: 'down'; dependency: string; error: string }
  | { kind: 'up'; dependency: string; failures: number; downMs: number };

export class DependencyState {
  private downSince: number | null = null;
  private failures = 0;

  constructor(
    readonly dependency: string,
    private readonly report: (e: DependencyEvent) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get isDown(): boolean {
    return this.downSince !== null;
  }

  failed(err: unknown): void {
    this.failures++;
    if (this.downSince !== null) return;
    this.downSince = this.now();
    this.report({ kind: 'down', dependency: this.dependency, error: describe(err) });
  }

  succeeded(): void {
    if (this.downSince === null) return;
    const event = { kind: 'up' as const, dependency: this.dependency, failures: this.failures, downMs: this.now() - this.downSince };
    this.downSince = null;
    this.failures = 0;
    this.report(event);
  }
}

/** One line for a failure: its code and message, never a stack. */
function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
