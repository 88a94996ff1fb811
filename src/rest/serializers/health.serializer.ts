/**
 * GET /health: each check's status, its latency in ms, and what it adds about its dependency.
 * `degraded`: a non-critical check (ingestion, a read replica) failed; /health itself stays 200.
 * The probes: /health/live (the process serves) and /health/ready (and may take traffic).
 */
import { z } from 'zod';
import type { HealthReport, Readiness } from '../../services/runtime/health.service';

const CHECK = z.object({ status: z.enum(['ok', 'unavailable', 'degraded']), latency_ms: z.number().optional(), error: z.string().optional() }).catchall(z.unknown());
export const HEALTH_SCHEMA = z.object({ status: z.enum(['ok', 'unavailable']), checks: z.record(z.string(), CHECK), version: z.string() });

export const LIVE_SCHEMA = z.object({ status: z.literal('live'), version: z.string() });
export const READY_SCHEMA = z.object({ status: z.enum(['ready', 'draining', 'unavailable']), checks: z.record(z.string(), CHECK).optional(), version: z.string() });

export function readyBody(r: Readiness, version: string) {
  return r.report ? { status: r.status, checks: healthBody(r.report).checks, version } : { status: r.status, version };
}

export function healthBody(r: HealthReport) {
  const checks = Object.fromEntries(
    Object.entries(r.checks).map(([name, c]) => [
      name,
      c.status === 'ok' ? { status: c.status, latency_ms: c.latencyMs, ...c.details } : { status: c.status, error: c.error, ...c.details },
    ]),
  );
  return { status: r.status, checks, version: r.version };
}
