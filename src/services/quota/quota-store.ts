/**
 * Fixed-window counters, atomic per call: a call is admitted only if every window is below
 * its limit, and then every window is incremented together; a refused call changes nothing.
 * Windows are aligned to the Unix epoch (domain/quota.ts), so a 1-day window resets at
 * 00:00 UTC and a 1-minute window at each calendar minute.
 */
import type { CounterWindow } from '../../domain/quota';

export type { CounterWindow };

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
