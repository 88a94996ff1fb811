/**
 * GET /graphiql: GraphiQL bundled from the project's own dependencies (web/graphiql, built
 * into dist/web/graphiql with its Monaco workers), so the explorer works without internet,
 * unlike Apollo Sandbox at GET /graphql, which loads from Apollo's CDN.
 */
import type { Router } from 'express';
import { sameOriginPolicy, webPageRouter } from './web-pages';

const CSP = sameOriginPolicy({ workers: true }); // Monaco's workers

export interface GraphiqlRouteDeps {
  /** Where the built pages are (default: dist/web of this checkout). */
  webDir?: string;
}

export function graphiqlRouter(deps: GraphiqlRouteDeps = {}): Router {
  return webPageRouter({ name: 'graphiql', csp: CSP, webDir: deps.webDir });
}
