/**
 * GET /: where to go from here. JSON for API clients, a small page for browsers (Accept:
 * text/html). Public and unmetered, like /health and the docs.
 */
import { Router } from 'express';
import { z } from 'zod';

export const INDEX_LINKS = [
  { rel: 'docs', href: '/docs', title: 'API reference (Swagger UI): every route, its parameters and errors; try it with your key' },
  { rel: 'openapi', href: '/v1/openapi.json', title: 'The OpenAPI 3.1 document, for generated clients' },
  { rel: 'graphql', href: '/graphql', title: 'GraphQL: POST queries with X-API-Key; open it in a browser for Apollo Sandbox' },
  { rel: 'dashboard', href: '/dashboard', title: 'Dashboard: candles, indicators, funding and data quality of every market, live, with your key' },
  { rel: 'graphiql', href: '/graphiql', title: 'GraphiQL: the GraphQL explorer served by this service (works without internet)' },
  { rel: 'health', href: '/health', title: 'Dependency health' },
] as const;

export const INDEX_SCHEMA = z.object({
  service: z.string(),
  version: z.string(),
  description: z.string(),
  authentication: z.string(),
  links: z.array(z.object({ rel: z.string(), href: z.string(), title: z.string() })),
});

const DESCRIPTION = 'Market data for crypto quants: OHLCV candles, funding rates, pre-computed features, multi-asset series and data quality, over REST (/v1) and GraphQL.';
const AUTHENTICATION = 'Every /v1 data route and GraphQL operation needs an API key (qp_...) in the X-API-Key header.';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function page(version: string): string {
  const items = INDEX_LINKS.map((l) => `    <li><a href="${l.href}">${l.href}</a>: ${escape(l.title)}</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Market Data API</title>
  <style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}code{background:#f0f2f4;padding:0 .25em}</style>
</head>
<body>
  <h1>Market Data API <small>${escape(version)}</small></h1>
  <p>${escape(DESCRIPTION)}</p>
  <p>${escape(AUTHENTICATION).replace('X-API-Key', '<code>X-API-Key</code>')}</p>
  <ul>
${items}
  </ul>
</body>
</html>
`;
}

export interface IndexRouteDeps {
  version: string;
}

export function indexRouter({ version }: IndexRouteDeps): Router {
  const router = Router();
  const json = JSON.stringify({ service: 'market-data', version, description: DESCRIPTION, authentication: AUTHENTICATION, links: INDEX_LINKS });
  const html = page(version);
  router.get('/', (req, res) => {
    res.vary('Accept');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') return void res.type('text/html; charset=utf-8').send(html);
    res.type('application/json').send(json);
  });
  return router;
}
