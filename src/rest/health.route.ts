/** GET /health: 200 when every dependency answers, 503 otherwise (same body). */
import { Router } from 'express';
import type { HealthService } from '../services/health.service';
import { healthBody } from './serializers/health.serializer';

export function healthRouter(health: HealthService): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const report = await health.report();
    res.status(report.status === 'ok' ? 200 : 503).json(healthBody(report));
  });
  return router;
}
