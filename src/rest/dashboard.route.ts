/**
 * GET /dashboard: charts of every market through GraphQL with the user's key (web/dashboard,
 * built into dist/web/dashboard). Queries over POST /graphql, live updates over graphql-ws on
 * the same path.
 */
import type { Router } from 'express';
import { sameOriginPolicy, webPageRouter } from './web-pages';

const CSP = sameOriginPolicy();

export interface DashboardRouteDeps {
  /** Where the built pages are (default: dist/web of this checkout). */
  webDir?: string;
}

export function dashboardRouter(deps: DashboardRouteDeps = {}): Router {
  return webPageRouter({ name: 'dashboard', csp: CSP, webDir: deps.webDir });
}
