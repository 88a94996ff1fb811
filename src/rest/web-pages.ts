/**
 * The browser pages built by scripts/build-web.js into dist/web/<page>/ (GET /dashboard,
 * GET /graphiql): the page itself revalidated on every load (it names the current assets), its
 * assets under /<page>/assets/ with content-hashed names, so cached for a year. Nothing comes
 * from another origin, and the Content-Security-Policy says so to the browser too. Public: the
 * page asks for the key and sends it on each GraphQL request.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import compression from 'compression';
import express, { Router, type Response } from 'express';

/** dist/web of this checkout: found upward from here (src/rest or dist/src/rest), beside package.json. */
export const WEB_DIR = (() => {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'web');
  }
  return path.resolve('dist', 'web');
})();

export interface WebPageRouteDeps {
  /** The URL path and the directory under dist/web. */
  name: string;
  /** What the page may load and connect to: never more than this origin. */
  csp: string;
  /** Where the built pages are (default: dist/web of this checkout). */
  webDir?: string;
}

/**
 * The Content-Security-Policy of a page: everything from this origin only; inline styles
 * (charts and editors add <style> elements at run time), and web workers where asked.
 */
export function sameOriginPolicy({ workers = false }: { workers?: boolean } = {}): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    ...(workers ? ["worker-src 'self'"] : []),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

function securityHeaders(res: Response, csp?: string): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (csp) res.setHeader('Content-Security-Policy', csp);
}

export function webPageRouter({ name, csp, webDir = WEB_DIR }: WebPageRouteDeps): Router {
  const router = Router();
  const dir = path.join(webDir, name);
  const page = path.join(dir, 'index.html');

  router.get(`/${name}`, (_req, res, next) => {
    securityHeaders(res, csp);
    res.sendFile(page, { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } }, (err) => {
      if (!err || res.headersSent) return;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return next(err);
      // The service runs, but its pages were never built (installed with --ignore-scripts).
      res.status(503).type('text/plain; charset=utf-8').send(`/${name} is not built: run \`npm run build\` (it bundles web/${name} into dist/web/${name}).\n`);
    });
  });

  router.use(
    `/${name}/assets`,
    compression({ threshold: 1024 }),
    express.static(path.join(dir, 'assets'), {
      index: false,
      redirect: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => securityHeaders(res),
    }),
  );
  return router;
}
