/**
 * Fixed-window counters, atomic per call: a call is admitted only if every window is below
 * its limit, and then every window is incremented together; a refused call changes nothing.
 * Windows are aligned to the Unix epoch, so a 1-day window resets at 00:00 UTC and a
 * 1-minute window at each calendar minute.
 */

export interface CounterWindow {
  /** Stable name, part of the counter key ("day", "minute", "field:multiAsset"). */
  name: string;
  /** null = unlimited (still counted). */
  limit: number | null;
  ms: number;
}

export interface ConsumeResult {
  allowed: boolean;
  /** Count in each window after the call (unchanged when refused). */
  counts: number[];
}

export interface QuotaStore {
  readonly kind: 'memory' | 'redis';
  consume(id: string, windows: readonly CounterWindow[], nowMs: number): Promise<ConsumeResult>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Index of the window of `ms` length that contains `nowMs`, and when it ends. */
export function windowOf(nowMs: number, ms: number): { index: number; endMs: number } {
  const index = Math.floor(nowMs / ms);
  return { index, endMs: (index + 1) * ms };
}
