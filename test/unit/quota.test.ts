/** Quota arithmetic (domain/quota.ts) and the in-process store's atomic counting. */
import { DEFAULT_TIER_LIMITS } from '../../src/domain/tier-limits';
import { quotaRefusal, quotaStatus, requestWindows, secondsUntilReset, windowOf } from '../../src/domain/quota';
import { MemoryQuotaStore } from '../../src/services/quota/memory.quota-store';

const MIN = 60_000;
const DAY = 86_400_000;
const AT = Date.UTC(2024, 0, 1, 23, 59, 30); // 30 s before a minute, and the day, ends

describe('windows', () => {
  it('aligns windows to the epoch: the minute ends on the minute, the day at 00:00 UTC', () => {
    expect(windowOf(AT, MIN).endMs).toBe(Date.UTC(2024, 0, 2));
    expect(windowOf(Date.UTC(2024, 0, 1, 12), DAY)).toEqual({ index: Date.UTC(2024, 0, 1) / DAY, endMs: Date.UTC(2024, 0, 2) });
  });

  it('counts whole seconds to the reset, at least 1', () => {
    expect(secondsUntilReset(AT, MIN)).toBe(30);
    expect(secondsUntilReset(AT + 29_999, MIN)).toBe(1);
    expect(secondsUntilReset(AT + 29_500, MIN)).toBe(1);
  });

  it('counts a request in the day first, then the minute, with the plan\'s limits', () => {
    expect(requestWindows(DEFAULT_TIER_LIMITS.free)).toEqual([
      { name: 'day', limit: 1_000, ms: DAY },
      { name: 'minute', limit: 10, ms: MIN },
    ]);
    expect(requestWindows(DEFAULT_TIER_LIMITS.scale)[0].limit).toBeNull();
  });
});

describe('status and refusal', () => {
  it('reports what is left and the next resets in Unix seconds', () => {
    expect(quotaStatus('free', DEFAULT_TIER_LIMITS.free, 7, 3, AT)).toEqual({
      tier: 'free',
      dayLimit: 1_000,
      dayRemaining: 993,
      minuteLimit: 10,
      minuteRemaining: 7,
      minuteResetSec: Date.UTC(2024, 0, 2) / 1000,
      dayResetSec: Date.UTC(2024, 0, 2) / 1000,
      nowMs: AT,
    });
    expect(quotaStatus('scale', DEFAULT_TIER_LIMITS.scale, 12, 3, AT)).toMatchObject({ dayLimit: null, dayRemaining: null });
  });

  it('when the minute is unlimited (null), then it is never the reason for a refusal', () => {
    const limits = { ...DEFAULT_TIER_LIMITS.free, minuteRequests: null };
    const s = quotaStatus('free', limits, 1_000, 1_000_000, AT);
    expect(s).toMatchObject({ minuteLimit: null, minuteRemaining: null, dayRemaining: 0 });
    expect(quotaRefusal(s, 1_000, 1_000_000).message).toMatch(/1,000 requests per day; resets/);
  });

  it('when only the minute is used up, then retry at the next minute and the message names the minute', () => {
    const s = quotaStatus('free', DEFAULT_TIER_LIMITS.free, 10, 10, Date.UTC(2024, 0, 1, 12, 0, 15));
    expect(quotaRefusal(s, 10, 10)).toEqual({ retryAfterSecs: 45, message: 'rate limit exceeded: the free plan allows 10 requests per minute; resets in 45 s' });
  });

  it('when both windows are used up, then the later reset counts and both are named', () => {
    const now = Date.UTC(2024, 0, 1, 12, 0, 15);
    const s = quotaStatus('free', DEFAULT_TIER_LIMITS.free, 1_000, 10, now);
    expect(quotaRefusal(s, 1_000, 10)).toEqual({
      retryAfterSecs: 12 * 3600 - 15,
      message: `rate limit exceeded: the free plan allows 1,000 requests per day and 10 requests per minute; resets in ${12 * 3600 - 15} s`,
    });
  });
});

describe('MemoryQuotaStore', () => {
  const windows = [
    { name: 'day', limit: 3, ms: DAY },
    { name: 'minute', limit: 2, ms: MIN },
  ];

  it('admits while every window is below its limit, counting all together; a refusal counts nothing', async () => {
    const AT = Date.UTC(2024, 0, 1, 12, 0, 30);
    const store = new MemoryQuotaStore(() => AT);
    try {
      expect(await store.consume('k', windows, AT)).toEqual({ allowed: true, counts: [1, 1] });
      expect(await store.consume('k', windows, AT)).toEqual({ allowed: true, counts: [2, 2] });
      expect(await store.consume('k', windows, AT)).toEqual({ allowed: false, counts: [2, 2] });
      // The next minute: the minute window is new, the day keeps counting, and caps at 3.
      expect(await store.consume('k', windows, AT + 31_000)).toEqual({ allowed: true, counts: [3, 1] });
      expect(await store.consume('k', windows, AT + 32_000)).toEqual({ allowed: false, counts: [3, 1] });
      expect(await store.consume('other', windows, AT)).toEqual({ allowed: true, counts: [1, 1] });
    } finally {
      await store.close();
    }
  });

  it('when many calls race, then exactly the limit is admitted', async () => {
    const store = new MemoryQuotaStore(() => AT);
    try {
      const results = await Promise.all(Array.from({ length: 50 }, () => store.consume('k', [{ name: 'minute', limit: 7, ms: MIN }], AT)));
      expect(results.filter((r) => r.allowed)).toHaveLength(7);
    } finally {
      await store.close();
    }
  });
});
