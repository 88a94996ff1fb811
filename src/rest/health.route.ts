import { Router } from 'express';
import type { HealthService } from '../services/health.service';

export function healthRouter(health: HealthService): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const report = await health.report();
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  });
  return router;
}
