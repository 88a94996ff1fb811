import { rateLimitHeaders } from '../../src/services/access/rate-limit-headers';
import type { QuotaStatus } from '../../src/services/access/principal';

const now = Date.UTC(2026, 0, 1, 12, 30, 18);
const base: QuotaStatus = {
  tier: 'free',
  dayLimit: 1000,
  dayRemaining: 990,
  minuteLimit: 10,
  minuteRemaining: 7,
  minuteResetSec: Date.UTC(2026, 0, 1, 12, 31) / 1000,
  dayResetSec: Date.UTC(2026, 0, 2) / 1000,
  nowMs: now,
};

describe('rate-limit headers', () => {
  it('when the key is free or pro, then X-RateLimit-Limit/Remaining are the daily quota', () => {
    expect(rateLimitHeaders(base)).toEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '990',
      'X-RateLimit-Reset': String(Date.UTC(2026, 0, 1, 12, 31) / 1000),
      'X-RateLimit-Limit-Minute': '10',
      'X-RateLimit-Remaining-Minute': '7',
      'RateLimit-Policy': '"minute";q=10;w=60, "day";q=1000;w=86400',
      RateLimit: '"minute";r=7;t=42',
    });
  });

  it('when the key is scale (no daily quota), then both refer to the minute window', () => {
    const h = rateLimitHeaders({ ...base, tier: 'scale', dayLimit: null, dayRemaining: null, minuteLimit: 500, minuteRemaining: 499 });
    expect(h['X-RateLimit-Limit']).toBe('500');
    expect(h['X-RateLimit-Remaining']).toBe('499');
    expect(h['RateLimit-Policy']).toBe('"minute";q=500;w=60');
  });

  it('when TIER_LIMITS makes the minute unlimited, then the minute headers are absent and the daily quota is reported', () => {
    const h = rateLimitHeaders({ ...base, minuteLimit: null, minuteRemaining: null });
    expect(h).toEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '990',
      'X-RateLimit-Reset': String(Date.UTC(2026, 0, 1, 12, 31) / 1000),
      'RateLimit-Policy': '"day";q=1000;w=86400',
      RateLimit: `"day";r=990;t=${(Date.UTC(2026, 0, 2) - now) / 1000}`,
    });
  });

  it('when both windows are unlimited, then only the next minute reset is sent', () => {
    expect(rateLimitHeaders({ ...base, dayLimit: null, dayRemaining: null, minuteLimit: null, minuteRemaining: null })).toEqual({
      'X-RateLimit-Reset': String(Date.UTC(2026, 0, 1, 12, 31) / 1000),
    });
  });

  it('when the day is nearer exhaustion than the minute, then RateLimit names the day window', () => {
    const h = rateLimitHeaders({ ...base, dayRemaining: 3, minuteRemaining: 9 });
    expect(h.RateLimit).toBe(`"day";r=3;t=${(Date.UTC(2026, 0, 2) - now) / 1000}`);
  });
});
