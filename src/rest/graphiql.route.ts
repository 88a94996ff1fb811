/**
 * GET /graphiql: GraphiQL bundled from the project's own dependencies (web/graphiql, built
 * into dist/web/graphiql with its Monaco workers), so the explorer works without internet,
 * unlike Apollo Sandbox at GET /graphql, which loads from Apollo's CDN.
 */
import type { Router } from 'express';
import { webPageRouter } from './web-pages';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  // Monaco and GraphiQL add <style> elements at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

export function graphiqlRouter(webDir?: string): Router {
  return webPageRouter({ name: 'graphiql', csp: CSP }, webDir);
}
