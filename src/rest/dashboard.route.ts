/**
 * GET /dashboard: charts of every market through GraphQL with the user's key (web/dashboard,
 * built into dist/web/dashboard). Queries over POST /graphql, live updates over graphql-ws on
 * the same path.
 */
import type { Router } from 'express';
import { webPageRouter } from './web-pages';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

export function dashboardRouter(webDir?: string): Router {
  return webPageRouter({ name: 'dashboard', csp: CSP }, webDir);
}
