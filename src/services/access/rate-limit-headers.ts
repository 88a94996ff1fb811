/**
 * The rate-limit response headers, transport-free: the X-RateLimit-* set of the spec and the
 * IETF fields of draft-ietf-httpapi-ratelimit-headers-10 beside them. Both transports send
 * exactly these on every authenticated response, errors included.
 */
import type { QuotaStatus } from './principal';

export function rateLimitHeaders(q: QuotaStatus): Record<string, string> {
  const nowSec = q.nowMs / 1000;
  const minuteT = Math.max(0, Math.ceil(q.minuteResetSec - nowSec));
  const dayT = Math.max(0, Math.ceil(q.dayResetSec - nowSec));
  const daily = q.dayLimit !== null && q.dayRemaining !== null;
  const headers: Record<string, string> = {
    // Free/pro: the daily quota; scale (no daily quota): the minute window.
    'X-RateLimit-Limit': String(daily ? q.dayLimit : q.minuteLimit),
    'X-RateLimit-Remaining': String(daily ? q.dayRemaining : q.minuteRemaining),
    'X-RateLimit-Reset': String(q.minuteResetSec),
    'X-RateLimit-Limit-Minute': String(q.minuteLimit),
    'X-RateLimit-Remaining-Minute': String(q.minuteRemaining),
  };
  const policies = [`"minute";q=${q.minuteLimit};w=60`];
  if (daily) policies.push(`"day";q=${q.dayLimit};w=86400`);
  headers['RateLimit-Policy'] = policies.join(', ');
  // The window nearest to exhaustion (smallest share remaining; the minute on a tie).
  const useDay = daily && q.dayRemaining! / q.dayLimit! < q.minuteRemaining / q.minuteLimit;
  headers['RateLimit'] = useDay ? `"day";r=${q.dayRemaining};t=${dayT}` : `"minute";r=${q.minuteRemaining};t=${minuteT}`;
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
