/**
 * GET /v1/openapi.json (the generated document) and GET /docs (Swagger UI, served from the
 * swagger-ui-dist npm package: no CDN, works offline). Public and unmetered.
 */
import path from 'node:path';
import { Router, type Response } from 'express';

/** The files of the renderer the page loads; nothing else of the package is served. */
const ASSETS = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png']);
const ASSET_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Market Data API: reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  displayRequestDuration: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

function noSniff(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

export interface DocsRouteDeps {
  /** The OpenAPI document, built on the first request and kept. */
  document: () => object;
}

export function docsRouter({ document }: DocsRouteDeps): Router {
  const router = Router();
  let json: string | undefined;

  router.get('/v1/openapi.json', (_req, res) => {
    json ??= JSON.stringify(document());
    noSniff(res);
    res.type('application/json').send(json);
  });

  router.get('/docs', (_req, res) => {
    noSniff(res);
    res.type('text/html; charset=utf-8').send(PAGE);
  });

  router.get('/docs/init.js', (_req, res) => {
    noSniff(res);
    res.type('text/javascript; charset=utf-8').send(INIT);
  });

  router.get('/docs/assets/:file', (req, res, next) => {
    const file = String(req.params.file);
    if (!ASSETS.has(file)) return next();
    noSniff(res);
    res.sendFile(path.join(ASSET_DIR, file), { maxAge: '1d' });
  });

  return router;
}
