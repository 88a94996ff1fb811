/** The Express application: middleware order, the /v1 routers, and the error edge. */
import express, { type Express } from 'express';
import type { Logger } from '../logger';
import type { HealthService } from '../services/health.service';
import { errorHandler, notFound } from './error-handler';
import { healthRouter } from './health.route';
import { requestContext } from './request-context';

export interface AppDeps {
  logger: Logger;
  health: HealthService;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(deps.logger));
  app.use(healthRouter(deps.health));
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
