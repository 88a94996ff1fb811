/**
 * GET /health: 200 when every dependency answers, 503 otherwise (same body). The orchestrator's
 * probes: /health/live (200 while the process serves) and /health/ready (503 while draining or
 * while a critical dependency is unreachable).
 */
import { Router } from 'express';
import type { HealthService } from '../services/runtime/health.service';
import { healthBody, readyBody } from './serializers/health.serializer';

export interface HealthRouteDeps {
  health: HealthService;
  version: string;
}

export function healthRouter({ health, version }: HealthRouteDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const report = await health.report();
    res.status(report.status === 'ok' ? 200 : 503).json(healthBody(report));
  });
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'live', version });
  });
  router.get('/health/ready', async (_req, res) => {
    const ready = await health.readiness();
    res.status(ready.status === 'ready' ? 200 : 503).json(readyBody(ready, version));
  });
  return router;
}
