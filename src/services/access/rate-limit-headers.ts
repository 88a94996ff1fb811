/**
 * The rate-limit response headers, transport-free: the X-RateLimit-* set of the spec and the
 * IETF fields of draft-ietf-httpapi-ratelimit-headers-10 beside them. Both transports send
 * exactly these on every authenticated response, errors included.
 */
import type { QuotaStatus } from './principal';

export function rateLimitHeaders(q: QuotaStatus): Record<string, string> {
  const nowSec = q.nowMs / 1000;
  // The windows the plan limits (TIER_LIMITS may make either unlimited: it is then not reported).
  const windows: Array<{ name: 'day' | 'minute'; limit: number; remaining: number; seconds: number; resetSec: number }> = [];
  if (q.dayLimit !== null && q.dayRemaining !== null) windows.push({ name: 'day', limit: q.dayLimit, remaining: q.dayRemaining, seconds: 86400, resetSec: q.dayResetSec });
  if (q.minuteLimit !== null && q.minuteRemaining !== null) windows.push({ name: 'minute', limit: q.minuteLimit, remaining: q.minuteRemaining, seconds: 60, resetSec: q.minuteResetSec });
  const day = windows.find((w) => w.name === 'day');
  const minute = windows.find((w) => w.name === 'minute');
  const headers: Record<string, string> = {};
  // Free/pro: the daily quota; scale (no daily quota): the minute window.
  const main = day ?? minute;
  if (main) {
    headers['X-RateLimit-Limit'] = String(main.limit);
    headers['X-RateLimit-Remaining'] = String(main.remaining);
  }
  headers['X-RateLimit-Reset'] = String(q.minuteResetSec);
  if (minute) {
    headers['X-RateLimit-Limit-Minute'] = String(minute.limit);
    headers['X-RateLimit-Remaining-Minute'] = String(minute.remaining);
  }
  if (windows.length) {
    headers['RateLimit-Policy'] = [minute, day]
      .filter((w) => w !== undefined)
      .map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`)
      .join(', ');
    // The window nearest to exhaustion (smallest share remaining; the minute on a tie).
    const nearest = day && (!minute || day.remaining / day.limit < minute.remaining / minute.limit) ? day : minute!;
    headers['RateLimit'] = `"${nearest.name}";r=${nearest.remaining};t=${Math.max(0, Math.ceil(nearest.resetSec - nowSec))}`;
  }
  return headers;
}

/** Headers browsers may read (CORS Access-Control-Expose-Headers). */
export const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Limit-Minute',
  'X-RateLimit-Remaining-Minute',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'X-Request-Id',
];
