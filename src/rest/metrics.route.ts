/** GET /metrics: Prometheus text format; `Authorization: Bearer <METRICS_TOKEN>` when that is set. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { AppError } from '../domain/errors';
import type { Metrics } from '../services/runtime/metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

export interface MetricsRouteDeps {
  metrics: Metrics;
  /** METRICS_TOKEN: when set, the bearer token a scrape must send. */
  token: string | undefined;
}

export function metricsRouter({ metrics, token }: MetricsRouteDeps): Router {
  const router = Router();
  const expected = token === undefined ? undefined : digest(token);
  router.get('/metrics', async (req, res) => {
    if (expected) {
      const m = /^Bearer\s+(.+)$/i.exec(req.header('authorization') ?? '');
      if (!m || !timingSafeEqual(digest(m[1].trim()), expected)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new AppError('UNAUTHORIZED', 'missing or invalid Authorization: Bearer <METRICS_TOKEN>');
      }
    }
    res.type(metrics.contentType).send(await metrics.render());
  });
  return router;
}
