/**
 * The Express application, assembled by the composition root: the shared HTTP edge
 * (transport/), the REST routers (rest/), GraphQL (graphql/, built by the caller), and the
 * error edge, in order.
 */
import express, { type Express, type RequestHandler } from 'express';
import type { Services } from './composition';
import type { Logger } from './logger';
import { dashboardRouter } from './rest/dashboard.route';
import { compressed } from './rest/data-route';
import { docsRouter } from './rest/docs.route';
import { errorHandler, notFound } from './rest/error-handler';
import { featuresRouter } from './rest/features.route';
import { graphiqlRouter } from './rest/graphiql.route';
import { healthRouter } from './rest/health.route';
import { indexRouter } from './rest/index.route';
import { keysRouter } from './rest/keys.route';
import { marketRouter } from './rest/market.route';
import { metricsRouter } from './rest/metrics.route';
import { openApiDocument } from './rest/openapi';
import { qualityRouter } from './rest/quality.route';
import type { Metrics } from './services/runtime/metrics';
import { cors } from './transport/cors';
import { requestContext } from './transport/request-context';
import { VERSION } from './version';

export interface HttpAppDeps {
  logger: Logger;
  services: Services;
  metrics: Metrics;
  /** POST/GET /graphql (Apollo), built by graphql/apollo.ts. */
  graphql: RequestHandler[];
}

export function createHttpApp({ logger, services: s, metrics, graphql }: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(logger, metrics));
  // Draining after SIGTERM: each response closes its connection, so keep-alive clients move to
  // another instance instead of holding this one open until the deadline.
  app.use(function closeWhenDraining(_req, res, next) {
    if (s.health.isDraining) res.setHeader('Connection', 'close');
    next();
  });
  app.use(cors());
  // The data routes first: most requests are theirs, and every router a request passes costs it.
  // They compress their own bodies (rest/data-route.ts); GraphQL's can be as large.
  app.use(marketRouter(s));
  app.use(featuresRouter(s));
  app.use(qualityRouter(s));
  app.use('/graphql', compressed, ...graphql);
  // Public and unmetered: the index, health, the API document and its page, metrics (own token).
  app.use(indexRouter({ version: VERSION }));
  app.use(healthRouter({ health: s.health, version: VERSION }));
  app.use(docsRouter({ document: () => openApiDocument(s.endpoints, s.exchanges, VERSION) }));
  // The browser pages (dist/web, built by scripts/build-web.js), public like the docs: their
  // data goes through /graphql with the user's key.
  app.use(dashboardRouter());
  app.use(graphiqlRouter());
  app.use(metricsRouter({ metrics, token: s.config.metricsToken }));
  app.use(keysRouter(s));
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
