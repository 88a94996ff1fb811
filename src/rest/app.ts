/** The Express application: middleware order, the routers, and the error edge. */
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../logger';
import type { Services } from '../composition';
import { cors } from './cors';
import { errorHandler, notFound } from './error-handler';
import { healthRouter } from './health.route';
import { featuresRouter } from './features.route';
import { keysRouter } from './keys.route';
import { marketRouter } from './market.route';
import { qualityRouter } from './quality.route';
import compression from 'compression';
import { requestContext } from './request-context';
import { docsRouter } from './docs.route';
import { metricsRouter } from './metrics.route';
import { openApiDocument } from './openapi';
import { VERSION } from '../composition';
import type { Metrics } from '../services/metrics';

export interface AppDeps {
  logger: Logger;
  services: Services;
  metrics: Metrics;
  /** POST/GET /graphql (Apollo), built by graphql/apollo.ts. */
  graphql: RequestHandler[];
}

export function createApp({ logger, services, metrics, graphql }: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(logger, metrics));
  app.use(cors());
  // Public and unmetered: health, the API document and its page, metrics (own token).
  app.use(healthRouter(services.health));
  app.use(docsRouter(() => openApiDocument(services, VERSION)));
  app.use(metricsRouter(metrics, services.config.metricsToken));
  app.use(keysRouter(services.access, services.keys));
  // gzip or br for bodies over 1 KB when the client accepts it, on the routes whose bodies
  // can be large (elsewhere the middleware's per-response cost buys nothing).
  const compress = compression({ threshold: 1024 });
  app.use(['/v1/ohlcv', '/v1/funding', '/v1/multi-asset', '/v1/markets', '/v1/features', '/v1/quality'], compress);
  app.use(featuresRouter(services.access, services.features));
  app.use(marketRouter(services.access, services.market));
  app.use(qualityRouter(services.access, services.quality));
  app.use('/graphql', compress, ...graphql);
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
