/**
 * What operators and integrators get: the OpenAPI document (valid 3.1, every route, and its
 * parameters and codes true to what the server does), the docs page's files, and /metrics.
 */
import net from 'node:net';
import type { Express } from 'express';
import { operations } from '../../src/rest/openapi';
import { privateRedis } from '../helpers/processes';
import { describeWith } from '../helpers/requirements';
import { manualClock, startTestServer, type Json, type TestServer } from '../helpers/server';
import { pollUntil } from '../helpers/wait';

type Doc = Json;

/** The validator package is ESM-only; load it with a real dynamic import (not require). */
const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<typeof import('@seriousme/openapi-schema-validator')>;

/** Every METHOD path the Express app routes, in OpenAPI path syntax. */
function expressRoutes(app: Express): string[] {
  const out: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${String(layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  walk((app as any).router.stack);
  return out;
}

function documented(doc: Doc): string[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
}

describe('the OpenAPI document and the docs page', () => {
  let srv: TestServer;
  let doc: Doc;
  let key: string;
  beforeAll(async () => {
    srv = await startTestServer();
    key = await srv.key('pro');
    const res = await fetch(`${srv.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  }, 60_000);
  afterAll(() => srv?.stop());

  it('when /v1/openapi.json is fetched without a key, then it is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const { Validator } = await importEsm('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('when the app routes are listed, then every one is in the document (and GraphQL too)', () => {
    const routes = expressRoutes(srv.app).filter((r) => !r.startsWith('GET /docs/')); // the page's own files
    expect(routes.length).toBeGreaterThan(10);
    expect(documented(doc)).toEqual(expect.arrayContaining([...routes, 'GET /graphql', 'POST /graphql']));
    expect(routes).toEqual(expect.arrayContaining(documented(doc).filter((r) => !r.endsWith(' /graphql'))));
  });

  it('when security is read, then X-API-Key, X-Admin-Token and the metrics bearer are declared and used', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.ApiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }));
    expect(schemes.AdminToken).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Admin-Token' }));
    expect(schemes.MetricsToken).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.paths['/v1/ohlcv'].get.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths['/v1/auth/keys'].post.security).toEqual([{ AdminToken: [] }]);
    expect(doc.paths['/health'].get.security).toEqual([]);
  });

  it('when a data route is read, then its errors use the envelope, list the spec codes, and carry the rate-limit headers', () => {
    const op = doc.paths['/v1/ohlcv'].get;
    const codes = Object.values(op.responses as Record<string, Json>)
      .flatMap((r) => r.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum ?? []);
    expect(codes).toEqual(
      expect.arrayContaining(['INVALID_TIMEFRAME', 'INVALID_TIMESTAMP', 'INVALID_TIME_RANGE', 'UNAUTHORIZED', 'TIER_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED']),
    );
    expect(op.responses['429'].headers).toEqual(expect.objectContaining({ 'Retry-After': expect.anything(), 'X-RateLimit-Limit': expect.anything() }));
    expect(op.responses['200'].headers).toEqual(
      expect.objectContaining({ 'X-RateLimit-Remaining-Minute': expect.anything(), RateLimit: expect.anything(), 'X-Request-Id': expect.anything() }),
    );
    // JSON only, so a generated client types the body; format describes the CSV, Parquet and Arrow representations.
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/json']);
    expect(op.responses['200'].headers['X-Next-Start']).toBeDefined();
    expect(op.parameters.find((p: Json) => p.name === 'format')).toMatchObject({ schema: { enum: ['json', 'csv', 'parquet', 'arrow'] }, description: expect.stringContaining('text/csv') });
    expect(doc.components.schemas.Error.required).toEqual(expect.arrayContaining(['error', 'message', 'request_id']));
    expect(op.parameters.find((p: Json) => p.name === 'limit').schema).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 10000 }));
  });

  /** A query of every documented parameter at its documented example. */
  function exampleQuery(params: Json[], without?: string, override?: [string, string]): string {
    const q = new URLSearchParams();
    for (const p of params) {
      if (p.name === without || p.example === undefined) continue;
      q.set(p.name, Array.isArray(p.example) ? p.example.join(',') : String(p.example));
    }
    if (override) q.set(...override);
    return q.toString();
  }

  const DATA_ROUTES = ['/v1/ohlcv', '/v1/funding', '/v1/features', '/v1/multi-asset', '/v1/quality', '/v1/markets'];

  it.each(DATA_ROUTES)('when %s is called with the documented examples, then it answers 200 (or QUALITY_NOT_FOUND) with the documented body', async (path) => {
    const params: Json[] = doc.paths[path].get.parameters ?? [];
    const res = await srv.getJson(`${path}?${exampleQuery(params)}`, key);
    if (path === '/v1/quality' && res.status === 404) return expect(res.body.error).toBe('QUALITY_NOT_FOUND');
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.any(Object) });
    // The documented 200 schema (the zod object the document is rendered from) accepts the body.
    const op = operations(srv.services.endpoints, srv.services.exchanges).find((o) => o.path === path && o.method === 'get')!;
    const parsed = op.ok.schema!.safeParse(res.body);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });


  it.each(DATA_ROUTES)('when a required parameter of %s is left out or malformed, then the error is one the document lists for it', async (path) => {
    const params: Json[] = doc.paths[path].get.parameters ?? [];
    for (const p of params) {
      if (p.required) {
        const missing = await srv.getJson(`${path}?${exampleQuery(params, p.name)}`, key);
        expect({ param: p.name, status: missing.status }).toEqual({ param: p.name, status: 400 });
        expect({ param: p.name, code: missing.body.error, codes: p['x-error-codes'] }).toEqual({
          param: p.name,
          code: expect.any(String),
          codes: expect.arrayContaining([missing.body.error]),
        });
      }
      const bad = await srv.getJson(`${path}?${exampleQuery(params, undefined, [p.name, '!!'])}`, key);
      expect({ param: p.name, status: bad.status }).toEqual({ param: p.name, status: 400 });
      expect(p['x-error-codes']).toContain(bad.body.error);
    }
  });

  /** Bytes written to the server as they are; its whole answer once it closes. */
  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const sock = net.connect(Number(new URL(srv.url).port), '127.0.0.1', () => sock.end(text));
      let out = '';
      sock.on('data', (d) => (out += d));
      sock.on('end', () => resolve(out));
      sock.on('error', reject);
    });

  it('when node:http refuses a request (headers over 16 KB, a malformed request line), then the envelope still comes back', async () => {
    const big = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'INVALID_PARAMETER', message: expect.any(String), request_id: expect.any(String) });
    const bad = await raw('NOT A REQUEST\r\n\r\n');
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(bad).toMatch(/"error":"INVALID_PARAMETER"/);
  });

  it('when a request-target has no path Express can route (a fragment, a backslash), then the 404 envelope with a request id', async () => {
    // `/\\%20@#/v1` parses as a host with no path: Express would skip every route and answer
    // with its own HTML page (found by the fuzz test).
    for (const target of ['/\\%20@#/v1', '/\\evil.example/v1/ohlcv#', '/#', '*']) {
      const answer = await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      expect({ target, status: head.split('\r\n')[0] }).toEqual({ target, status: 'HTTP/1.1 404 Not Found' });
      expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'NOT_FOUND', message: expect.any(String), request_id: expect.any(String) });
    }
    // The escaping changes nothing for ordinary targets or for backslashes in a query value.
    const ok = await raw(`GET /health?x=a\\b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(ok).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('when /docs is opened, then the page and the renderer files it loads come from this server', async () => {
    const page = await fetch(`${srv.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs.every((s) => s.startsWith('/docs/'))).toBe(true);
    for (const s of srcs) {
      const r = await fetch(`${srv.url}${s}`);
      expect({ s, status: r.status }).toEqual({ s, status: 200 });
    }
    expect((await fetch(`${srv.url}/docs/assets/package.json`)).status).toBe(404);
  });
});

function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('GET /metrics', () => {
  let srv: TestServer;
  // A clock that stands still: no minute boundary can fall inside the quota loops below.
  const clock = manualClock(Date.now());
  beforeAll(async () => {
    srv = await startTestServer({ env: { SEED_DEMO: 'true' }, clock: clock.now });
  }, 180_000);
  afterAll(() => srv?.stop());

  it('when the database is empty at start, then the demo data is seeded', async () => {
    expect(await srv.services.store.series.isEmpty()).toBe(false);
  });

  it('when scraped after traffic, then requests, latency, quota rejections, jobs and freshness are there', async () => {
    const pro = await srv.key('pro');
    const free = await srv.key('free');
    const start = new Date(srv.services.clock() - 3 * 3_600_000).toISOString();
    const perp = srv.services.exchanges.perpetuals[0];
    expect((await srv.getJson(`/v1/ohlcv?symbol=BTC-USDT&exchange=${perp}&timeframe=1h&start=${start}`, pro)).status).toBe(200);
    expect((await srv.getJson('/v1/ohlcv?symbol=BTC-USDT', pro)).status).toBe(400);
    for (let i = 0; i < 11; i++) await srv.getJson('/v1/features/available', free);
    await fetch(`${srv.url}/no/such/path/${Math.random()}`);

    // The quality job's first run starts with the server; wait for it to be counted.
    const scrape = async () => {
      const r = await fetch(`${srv.url}/metrics`);
      return { res: r, text: await r.text() };
    };
    const { res, text } = await pollUntil(scrape, (s) => sample(s.text, 'mds_job_runs_total', { job: 'quality', outcome: 'ok' }) !== undefined, { withinMs: 30_000 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(sample(text, 'mds_http_requests_total', { route: '/v1/ohlcv', status: '200', method: 'GET' })).toBe(1);
    expect(sample(text, 'mds_http_requests_total', { route: '/v1/ohlcv', status: '400' })).toBe(1);
    expect(sample(text, 'mds_http_requests_total', { route: '/v1/features/available', status: '429' })).toBe(1);
    expect(sample(text, 'mds_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'mds_http_request_duration_seconds_count', { route: '/v1/ohlcv', status: '200' })).toBe(1);
    expect(sample(text, 'mds_quota_rejections_total', { tier: 'free', scope: 'request' })).toBe(1);
    expect(sample(text, 'mds_job_runs_total', { job: 'seed_demo', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'mds_job_runs_total', { job: 'quality', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    const nowSec = srv.services.clock() / 1000;
    const latest1h = sample(text, 'mds_features_latest_timestamp_seconds', { timeframe: '1h' })!;
    expect(nowSec - latest1h).toBeGreaterThan(0);
    expect(nowSec - latest1h).toBeLessThan(3 * 3600);
    const stalest1h = sample(text, 'mds_features_stalest_timestamp_seconds', { timeframe: '1h' })!;
    expect(stalest1h).toBeLessThanOrEqual(latest1h);
    expect(nowSec - sample(text, 'mds_quality_computed_timestamp_seconds', { which: 'newest' })!).toBeLessThan(600);
    expect(sample(text, 'mds_process_resident_memory_bytes', {})).toBeGreaterThan(0);
  });

  it('when the quota refuses a GraphQL request, then it is counted by tier like a REST one', async () => {
    const free = await srv.key('free');
    for (let i = 0; i < 11; i++) await srv.gql('{ markets { symbol } }', undefined, free);
    const text = await (await fetch(`${srv.url}/metrics`)).text();
    expect(sample(text, 'mds_http_requests_total', { route: '/graphql', status: '429' })).toBe(1);
    expect(sample(text, 'mds_quota_rejections_total', { tier: 'free', scope: 'request' })).toBe(2);
  });

  // Here rather than beside the document tests: this server is seeded (demo data) at start;
  // last in the block, so the request counts asserted above are not disturbed.
  it('when the documented bodies are checked against fuller answers (markets with coverage, a candle page with rows), then they match', async () => {
    const key = await srv.key('pro');
    const start = new Date(srv.services.clock() - 6 * 3_600_000).toISOString();
    const perp = srv.services.exchanges.perpetuals[0];
    for (const [path, q] of [
      ['/v1/markets', ''],
      ['/v1/ohlcv', `symbol=BTC-USDT&exchange=${perp}&timeframe=1h&start=${start}`],
      ['/v1/funding', `symbol=BTC-USDT&exchange=${perp}&start=${start}&normalized=true`],
      ['/v1/features', `symbol=BTC-USDT&exchange=${perp}&timeframe=1h&features=rsi_14,macd&start=${start}`],
      ['/v1/multi-asset', `symbols=BTC-USDT,ETH-USDT&exchange=${perp}&timeframe=1h&field=close&start=${start}`],
      ['/v1/features/available', ''],
      ['/v1/auth/keys', ''],
    ]) {
      const res = await srv.getJson(`${path}?${q}`, key);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body.count ?? 1).toBeGreaterThan(0);
      const op = operations(srv.services.endpoints, srv.services.exchanges).find((o) => o.path === path && o.method === 'get')!;
      const parsed = op.ok.schema!.safeParse(res.body);
      expect({ path, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ path, issues: [] });
    }
  });
});

describe('GET /metrics with METRICS_TOKEN, and dependency errors', () => {
  let srv: TestServer;
  const clock = manualClock(Date.now());
  beforeAll(async () => {
    srv = await startTestServer({ env: { METRICS_TOKEN: 'scrape-secret' }, clock: clock.now });
  }, 60_000);
  afterAll(() => srv?.stop());

  it('when the bearer token is missing or wrong, then 401 in the envelope; when right, 200', async () => {
    const none = await fetch(`${srv.url}/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual(expect.objectContaining({ error: 'UNAUTHORIZED' }));
    expect((await fetch(`${srv.url}/metrics`, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${srv.url}/metrics`, { headers: { Authorization: 'Bearer scrape-secret' } })).status).toBe(200);
  });

  it('when the database is gone, then requests fail 503 and the failure is counted as a database error; readiness fails, liveness holds', async () => {
    const key = await srv.key('pro');
    const ready = await srv.getJson('/health/ready', '');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ready', checks: expect.objectContaining({ database: expect.objectContaining({ status: 'ok' }) }), version: expect.any(String) } });
    await srv.services.store.db.close();
    const notReady = await srv.getJson('/health/ready', '');
    expect({ status: notReady.status, state: notReady.body.status, database: notReady.body.checks.database.status }).toEqual({ status: 503, state: 'unavailable', database: 'unavailable' });
    const live = await srv.getJson('/health/live', '');
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'live', version: expect.any(String) } });
    clock.advance(1_000); // past the key cache: the key lookup reaches the closed database
    const res = await srv.getJson('/v1/features/available', key);
    expect(res.status).toBe(503);
    const text = await (await fetch(`${srv.url}/metrics`, { headers: { Authorization: 'Bearer scrape-secret' } })).text();
    expect(sample(text, 'mds_dependency_errors_total', { dependency: 'database' })).toBe(1);
    expect(sample(text, 'mds_metrics_scrape_errors_total', {})).toBeGreaterThanOrEqual(1);
  });
});

describe('the orchestrator probes', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  }, 60_000);
  afterAll(() => srv?.stop());

  it('when the instance drains (SIGTERM), then /health/ready is 503 draining at once while /health and /health/live stay 200', async () => {
    srv.services.health.drain();
    const ready = await srv.getJson('/health/ready', '');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 503, body: { status: 'draining', version: expect.any(String) } });
    expect((await srv.getJson('/health', '')).status).toBe(200);
    expect((await srv.getJson('/health/live', '')).status).toBe(200);
  });
});

describeWith('REDIS_URL', 'GET /metrics when Redis is down', () => {
  const redis = privateRedis();
  let srv: TestServer;
  beforeAll(async () => {
    await (await redis).start();
    srv = await startTestServer({ env: { REDIS_URL: (await redis).url } });
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    await (await redis).stop();
  });

  it('when the quota store is gone, then requests fail 503 and the failure is counted as a redis error', async () => {
    const key = await srv.key('pro');
    expect((await srv.getJson('/v1/features/available', key)).status).toBe(200);
    await (await redis).stop();
    const res = await srv.getJson('/v1/features/available', key);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 503, error: 'SERVICE_UNAVAILABLE' });
    const text = await (await fetch(`${srv.url}/metrics`)).text();
    expect(sample(text, 'mds_dependency_errors_total', { dependency: 'redis' })).toBe(1);
    expect(sample(text, 'mds_dependency_errors_total', { dependency: 'database' })).toBeUndefined();
    await (await redis).start(); // and back, so the server stops cleanly
  });
});
