/** In-process quota store: the embedded default (one process, no Redis configured). */
import { windowOf } from '../../domain/quota';
import type { ConsumeResult, CounterWindow, QuotaStore } from './quota-store';

const SWEEP_MS = 60_000;

export class MemoryQuotaStore implements QuotaStore {
  readonly kind = 'memory';
  private readonly counters = new Map<string, { count: number; endMs: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly clock: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  async consume(id: string, windows: readonly CounterWindow[], nowMs: number): Promise<ConsumeResult> {
    // Synchronous from here on: nothing can interleave between the check and the increment.
    const entries = windows.map((w) => {
      const { index, endMs } = windowOf(nowMs, w.ms);
      const key = `${id}|${w.name}|${index}`;
      const current = this.counters.get(key);
      return { key, endMs, count: current && current.endMs > nowMs ? current.count : 0 };
    });
    const allowed = entries.every((e, i) => windows[i].limit === null || e.count < windows[i].limit!);
    if (allowed) {
      for (const e of entries) {
        e.count += 1;
        this.counters.set(e.key, { count: e.count, endMs: e.endMs });
      }
    }
    return { allowed, counts: entries.map((e) => e.count) };
  }

  private sweep(): void {
    const now = this.clock();
    for (const [k, v] of this.counters) if (v.endMs <= now) this.counters.delete(k);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
