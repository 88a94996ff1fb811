/**
 * Quota arithmetic, pure: the two windows a request is counted in (the UTC day and the calendar
 * minute), what is left after a count, and when and why a refused request may retry.
 */
import { DAY_MS, MINUTE_MS } from './time';
import type { TierLimits } from './tier-limits';
import type { Tier } from './tiers';

/** One fixed window a request is counted in. `limit` null: unlimited (still counted). */
export interface CounterWindow {
  /** Stable name, part of the counter key ("day", "minute", "field:multiAsset"). */
  name: string;
  limit: number | null;
  ms: number;
}

/** Index of the window of `ms` length that contains `nowMs`, and when it ends. */
export function windowOf(nowMs: number, ms: number): { index: number; endMs: number } {
  const index = Math.floor(nowMs / ms);
  return { index, endMs: (index + 1) * ms };
}

/** The windows of a request quota: the day first, then the minute (counts come back in this order). */
export function requestWindows(limits: TierLimits): CounterWindow[] {
  return [
    { name: 'day', limit: limits.dailyRequests, ms: DAY_MS },
    { name: 'minute', limit: limits.minuteRequests, ms: MINUTE_MS },
  ];
}

/** The caller's quota after this request: what the rate-limit headers report. */
export interface QuotaStatus {
  tier: Tier;
  dayLimit: number | null;
  dayRemaining: number | null;
  minuteLimit: number | null;
  minuteRemaining: number | null;
  /** Unix seconds of the next minute boundary. */
  minuteResetSec: number;
  /** Unix seconds of the next midnight UTC. */
  dayResetSec: number;
  nowMs: number;
}

/** The status after counting: `dayCount` and `minuteCount` are the windows' counts now. */
export function quotaStatus(tier: Tier, limits: TierLimits, dayCount: number, minuteCount: number, nowMs: number): QuotaStatus {
  return {
    tier,
    dayLimit: limits.dailyRequests,
    dayRemaining: limits.dailyRequests === null ? null : Math.max(0, limits.dailyRequests - dayCount),
    minuteLimit: limits.minuteRequests,
    minuteRemaining: limits.minuteRequests === null ? null : Math.max(0, limits.minuteRequests - minuteCount),
    minuteResetSec: windowOf(nowMs, MINUTE_MS).endMs / 1000,
    dayResetSec: windowOf(nowMs, DAY_MS).endMs / 1000,
    nowMs,
  };
}

/** Whole seconds (at least 1) from `nowMs` until the window of `ms` containing it ends. */
export function secondsUntilReset(nowMs: number, ms: number): number {
  return Math.max(1, Math.ceil((windowOf(nowMs, ms).endMs - nowMs) / 1000));
}

/**
 * Why a refused request was refused and when to retry: the exhausted windows (both when both
 * are), and the later of their resets.
 */
export function quotaRefusal(status: QuotaStatus, dayCount: number, minuteCount: number): { retryAfterSecs: number; message: string } {
  const now = status.nowMs;
  const dayOut = status.dayLimit !== null && dayCount >= status.dayLimit;
  const minuteOut = status.minuteLimit !== null && minuteCount >= status.minuteLimit;
  const retry = Math.max(dayOut ? secondsUntilReset(now, DAY_MS) : 0, minuteOut ? secondsUntilReset(now, MINUTE_MS) : 0);
  const what = [
    dayOut ? `${status.dayLimit!.toLocaleString('en-US')} requests per day` : null,
    minuteOut ? `${status.minuteLimit!.toLocaleString('en-US')} requests per minute` : null,
  ]
    .filter(Boolean)
    .join(' and ');
  return { retryAfterSecs: retry, message: `rate limit exceeded: the ${status.tier} plan allows ${what}; resets in ${retry} s` };
}
