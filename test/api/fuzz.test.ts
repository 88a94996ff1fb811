/**
 * Bad input, fuzzed with fast-check over real HTTP (node:http, so raw paths and junk percent-encoding
 * reach the server unnormalized): every REST route, key creation and revocation, GraphQL documents,
 * variables and transports; on the embedded database, and with DATABASE_URL on PostgreSQL (fewer
 * runs). The properties are test/helpers/fuzz/checks.ts's. Replay a failure with
 * `FUZZ_SEED=<seed> npm run jest -- test/api/fuzz.test.ts`; `FUZZ_SCALE=10` multiplies the runs,
 * `FUZZ_TRACE=1` prints every exchange. Each defect found stays in fuzz-regressions.test.ts.
 */
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { hashKey } from '../../src/domain/api-keys';
import { Exchanges } from '../../src/domain/exchanges';
import { marketEndpoints } from '../../src/domain/params/market-endpoints';
import { marketOperations } from '../../src/rest/openapi.market-operations';
import { loadFixtures } from '../helpers/fixtures';
import { check, fail, isGraphqlPath, summary } from '../helpers/fuzz/checks';
import {
  ADMIN_TOKEN,
  NOW,
  ROUTE_PARAMS,
  VALID_PARAMS,
  exchangeV,
  featureNameV,
  fieldV,
  fuzzParams,
  junk,
  queryFor,
  rarely,
  symbolV,
  timeV,
  timeframeV,
} from '../helpers/fuzz/inputs';
import { RAW, UNRESERVED, agent, hv, pct, send, type Got, type Sent } from '../helpers/fuzz/wire';
import type { Json } from '../helpers/json';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';

// ---- the fuzz ------------------------------------------------------------------------------

afterAll(() => agent.destroy());

/**
 * The properties over one server: on the embedded database (always), and on PostgreSQL when
 * DATABASE_URL is set, there with `share` of the runs (the same code paths; what differs is the
 * database's own errors, which must not reach a body either).
 */
function fuzzSuite(makeDb: () => Promise<FreshDatabase | null>, share: number): void {
  const params = (numRuns: number) => fuzzParams(numRuns * share);
  const clock = manualClock(NOW);
  let srv: TestServer;
  const user = randomUUID();
  const keys: Record<'free' | 'pro' | 'scale' | 'victim' | 'revoked' | 'foreign', string> = {
    free: '', pro: '', scale: '', victim: '', revoked: '', foreign: '',
  };
  // Key pools, read when a value is generated (after beforeAll has made the keys).
  const apiKeyV: fc.Arbitrary<string | string[] | undefined> = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('free', 'pro', 'scale', 'scale').map((k) => keys[k as keyof typeof keys]) },
    {
      weight: 4,
      arbitrary: fc
        .constantFrom<() => string | string[] | undefined>(
          () => undefined, () => '', () => ' ', () => keys.revoked, () => keys.victim, () => keys.foreign, () => `${keys.pro}x`, () => keys.pro.slice(0, -1),
          () => keys.pro.toUpperCase(), () => ` ${keys.pro} `, () => `Bearer ${keys.pro}`, () => `qp_${'x'.repeat(43)}`, () => `qp_${'x'.repeat(197)}`,
          () => `qp_${'x'.repeat(2000)}`, () => 'qp_', () => 'QP_abc', () => `qp_${'é'.repeat(43)}`, () => `qp_${'😀'.repeat(20)}`, () => hashKey(keys.pro),
          () => [keys.pro, keys.scale], () => [keys.pro, ''], () => `${keys.pro},${keys.scale}`,
        )
        .map((f) => f()),
    },
    { weight: 1, arbitrary: junk.map((s) => `qp_${s}`) },
    { weight: 1, arbitrary: junk },
  );
  /** A working key nine times in ten: the requests that matter get past authentication. */
  const mostlyValidKeyV = fc.oneof({ weight: 9, arbitrary: fc.constantFrom('free', 'pro', 'scale', 'scale').map((k) => keys[k as keyof typeof keys]) }, { weight: 1, arbitrary: apiKeyV });
  const hashV: fc.Arbitrary<string> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .constantFrom<() => string>(
          () => hashKey(keys.victim), () => hashKey(keys.revoked), () => hashKey(keys.foreign), () => hashKey(keys.revoked).toUpperCase(),
          () => ` ${hashKey(keys.revoked)}`, () => hashKey(keys.victim).slice(0, 63), () => `${hashKey(keys.revoked)}0`,
        )
        .map((f) => f()),
    },
    { weight: 2, arbitrary: fc.stringMatching(/^[0-9a-f]{64}$/) },
    { weight: 3, arbitrary: junk },
  );
  /** What the answers of the current property were: `status code` -> how many. */
  const outcomes = new Map<string, number>();
  const outcomeOf = (g: Got): string => {
    let code = '';
    try {
      const body = JSON.parse(g.text) as Json;
      code = typeof body.error === 'string' ? body.error : (body.errors?.[0]?.extensions?.code ?? (body.data ? 'data' : ''));
    } catch {
      code = String(g.headers['content-type'] ?? '').split(';')[0];
    }
    return `${g.status}${code ? ` ${code}` : ''}`;
  };

  /** One request; the clock moves a minute first, so no per-minute window fills up. */
  const call = async (s: Sent): Promise<Got> => {
    clock.advance(60_000);
    try {
      const g = await send(srv.url, s);
      outcomes.set(outcomeOf(g), (outcomes.get(outcomeOf(g)) ?? 0) + 1);
      if (process.env.FUZZ_TRACE) console.log(summary(s, g));
      return g;
    } catch (err) {
      if (process.env.FUZZ_TRACE) console.log(`${s.method} ${s.path.slice(0, 200)}: ${err}`);
      throw err;
    }
  };

  let db: FreshDatabase | null = null;

  beforeAll(async () => {
    db = await makeDb();
    srv = await startTestServer({ clock: clock.now, database: db?.url, env: { ADMIN_TOKEN, UPGRADE_URL: 'https://example.com/upgrade' } });
    await loadFixtures(srv.services, NOW);
    keys.free = await srv.key('free', user);
    keys.pro = await srv.key('pro', user);
    keys.scale = await srv.key('scale', user);
    keys.victim = await srv.key('pro', user); // revoked by the fuzz at some point, through its hash
    keys.revoked = await srv.key('free', user);
    keys.foreign = await srv.key('pro'); // another user's
    const revoked = await send(srv.url, { method: 'DELETE', path: `/v1/auth/keys/${hashKey(keys.revoked)}`, headers: { 'X-API-Key': keys.pro } });
    expect(revoked.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await srv?.stop();
    await db?.drop();
  });

  beforeEach(() => outcomes.clear());
  /** One line per property: how many requests, how long, and what came back (so a generator that only ever reaches one refusal shows). */
  const report = (what: string, t0: number) => {
    const n = [...outcomes.values()].reduce((a, b) => a + b, 0);
    const top = [...outcomes].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k} ×${v}`).join(', ');
    console.info(`${what}: ${n} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${top}`);
  };

  // ---- REST ------------------------------------------------------------------------------

  const ROUTES = Object.keys(ROUTE_PARAMS);
  /** Routes with parameters get most of the runs. */
  const routeV = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...ROUTES.filter((r) => Object.keys(ROUTE_PARAMS[r]).length > 1)) },
    { weight: 1, arbitrary: fc.constantFrom(...ROUTES.filter((r) => Object.keys(ROUTE_PARAMS[r]).length <= 1)) },
  );

  it('when the API document lists its data routes, then each is fuzzed with its parameters and valid requests', () => {
    const exchanges = new Exchanges(['perp', 'spot']);
    const routes = marketOperations(marketEndpoints(exchanges), exchanges).map((o) => o.path);
    expect(routes.filter((r) => !(r in ROUTE_PARAMS))).toEqual([]);
    expect(routes.filter((r) => r !== '/v1/features/available' && !(r in VALID_PARAMS))).toEqual([]);
  });

  it('when every GET route gets a random query string, then no 5xx, errors are envelopes, nothing leaks', async () => {
    const t0 = performance.now();
    const request = routeV
      .chain((route) => fc.tuple(fc.constant(route), queryFor(route), fc.option(fc.constantFrom('gzip', 'br', 'deflate', 'identity'), { freq: 3 })));
    await fc.assert(
      fc.asyncProperty(request, mostlyValidKeyV, async ([route, query, encoding], key) => {
        const headers: Record<string, string | string[]> = {};
        if (key !== undefined) headers['X-API-Key'] = Array.isArray(key) ? key.map(hv) : hv(key);
        if (encoding) headers['Accept-Encoding'] = encoding;
        const s: Sent = { method: 'GET', path: `${route}?${query}`.slice(0, 12_000), headers };
        check(s, await call(s));
      }),
      params(500),
    );
    report('REST query strings', t0);
  }, 120_000);

  it('when REST requests carry random headers, methods and path spellings, then no 5xx, errors are envelopes, nothing leaks', async () => {
    const t0 = performance.now();
    const headerNameV = fc
      .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,24}$/)
      .filter((n) => !/^(content-length|transfer-encoding|connection|host|expect|upgrade|keep-alive|te|trailer|content-encoding)$/i.test(n));
    const headersV = fc.record(
      {
        key: apiKeyV,
        admin: fc.constantFrom(ADMIN_TOKEN, `${ADMIN_TOKEN} `, 'nope', '', 'x'.repeat(5000), 'é'.repeat(50), '\u0000'),
        contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', '*/*', ';;;', 'application/json; charset'),
        acceptEncoding: fc.constantFrom('gzip', 'br', 'deflate', 'identity', '*', 'gzip;q=0', 'br;q=1.0, gzip;q=0.5', 'identity;q=0, *;q=0', 'zstd', 'gzip;q=abc', ',,,', 'x'.repeat(2000)),
        authorization: fc.constantFrom('Bearer x', 'Bearer ', 'Basic Zm9vOmJhcg==', 'Basic %%%', `Bearer ${'x'.repeat(4000)}`, 'Digest a="'),
        accept: fc.constantFrom('application/json', 'text/html', 'text/csv', '*/*', 'application/xml', 'image/*;q=0', ''),
        origin: fc.constantFrom('https://example.com', 'null', '*', 'file://'),
        extra: fc.array(fc.tuple(headerNameV, junk), { maxLength: 3 }),
      },
      { requiredKeys: ['key'] },
    );
    const pathV = fc.tuple(routeV, fc.oneof({ weight: 10, arbitrary: fc.constant('as is') }, { weight: 1, arbitrary: fc.constantFrom('upper', 'slash', 'double', 'semicolon', 'encoded', 'dot') })).map(([route, how]) => {
      if (how === 'as is') return route;
      if (how === 'upper') return route.toUpperCase();
      if (how === 'slash') return `${route}/`;
      if (how === 'double') return `/${route}`;
      if (how === 'semicolon') return `${route};jsessionid=1`;
      if (how === 'encoded') return route.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`);
      return `/v1/..${route}`;
    });
    const request = fc
      .tuple(pathV, fc.oneof({ weight: 12, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'PROPFIND') }))
      .chain(([path, method]) => {
        const route = ROUTES.find((r) => r.toLowerCase() === path.toLowerCase().replace(/\/$|;.*$/, '').replace(/^\/\/|^\/v1\/\.\./, '/')) ?? '/v1/ohlcv';
        return fc.tuple(fc.constant(path), fc.constant(method), queryFor(route), headersV, fc.option(junk, { freq: 3 }));
      });
    await fc.assert(
      fc.asyncProperty(request, async ([path, method, query, h, body]) => {
        const headers: Record<string, string | string[]> = {};
        if (h.key !== undefined) headers['X-API-Key'] = Array.isArray(h.key) ? h.key.map(hv) : hv(h.key);
        if (h.admin !== undefined) headers['X-Admin-Token'] = hv(h.admin);
        if (h.contentType !== undefined) headers['Content-Type'] = h.contentType;
        if (h.acceptEncoding !== undefined) headers['Accept-Encoding'] = h.acceptEncoding;
        if (h.authorization !== undefined) headers.Authorization = hv(h.authorization);
        if (h.accept !== undefined) headers.Accept = h.accept;
        if (h.origin !== undefined) headers.Origin = h.origin;
        const taken = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
        for (const [n, v] of h.extra ?? []) if (!taken.has(n.toLowerCase())) headers[n] = hv(v);
        const withBody = body !== null && method !== 'GET' && method !== 'HEAD';
        const s: Sent = { method, path: `${path}?${query}`.slice(0, 8_000), headers, body: withBody ? body : undefined };
        check(s, await call(s));
      }),
      params(300),
    );
    report('REST headers and methods', t0);
  }, 120_000);

  it('when key creation and revocation get random bodies, content types, tokens and hashes, then no 5xx, errors are envelopes, nothing leaks', async () => {
    const t0 = performance.now();
    const userIdV = fc.oneof({ weight: 4, arbitrary: fc.uuid().map(String) }, fc.constantFrom(randomUUID().toUpperCase(), `{${randomUUID()}}`, randomUUID().replace(/-/g, ''), ''), junk);
    const labelV = fc.oneof(junk, fc.constant(null), fc.constantFrom('x'.repeat(100), 'x'.repeat(101), 'é'.repeat(100), '😀'.repeat(51)));
    const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), junk, fc.integer(), fc.boolean(), fc.constant(null));
    const objectBody = fc.record(
      {
        user_id: fc.oneof({ weight: 6, arbitrary: userIdV }, { weight: 1, arbitrary: anyJson }),
        tier: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('free', 'pro', 'scale', 'free', 'pro', 'scale', 'FREE', 'gold', '', ' pro') }, { weight: 1, arbitrary: anyJson }),
        label: fc.oneof({ weight: 6, arbitrary: labelV }, { weight: 1, arbitrary: anyJson }),
      },
      { requiredKeys: ['user_id', 'tier'] },
    ).map((o) => JSON.stringify(o));
    const bodyV = fc.oneof(
      { weight: 6, arbitrary: objectBody },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? '') },
      { weight: 1, arbitrary: junk },
      {
        weight: 1,
        arbitrary: fc.constantFrom('', '{', '{"user_id":', 'null', '[]', '[1,2]', '"x"', '1', '{"a":1}{"b":2}', '\ufeff{}', `{"pad":"${'x'.repeat(17_000)}"}`, `${'['.repeat(5000)}${']'.repeat(5000)}`, `{"user_id":"${'\\u0000'.repeat(100)}"}`, 'user_id=1&tier=pro',
          `{"__proto__":{"tier":"pro"},"user_id":"${randomUUID()}"}`, `{"constructor":{"prototype":{"tier":"pro"}},"user_id":"${randomUUID()}","tier":"free"}`,
          `{"user_id":"${randomUUID()}","tier":"pro","tier":"gold"}`),
      },
    );
    const contentTypeV = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(undefined, 'APPLICATION/JSON', 'application/json; charset=latin1',
      'application/json; charset=utf-16', 'application/json; charset=utf-8; charset=ascii', 'application/vnd.api+json', 'application/jsonx', 'text/plain', 'text/json',
      'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '*/*', 'json', ';', ''),
      },
    );
    const adminV = fc.oneof({ weight: 8, arbitrary: fc.constant(ADMIN_TOKEN) }, { weight: 2, arbitrary: fc.constantFrom(undefined, `${ADMIN_TOKEN}x`, ADMIN_TOKEN.toUpperCase(), '', 'x'.repeat(3000), 'é'.repeat(30), 'Bearer ' + ADMIN_TOKEN) });
    const encodingV = rarely(fc.constantFrom('gzip', 'gzip', 'gzip (not compressed)', 'deflate', 'br', 'identity', 'x-unknown'), 8);
    const post = fc.record({ kind: fc.constant('post' as const), body: bodyV, contentType: contentTypeV, admin: adminV, key: apiKeyV, encoding: encodingV });
    const del = fc.record({ kind: fc.constant('delete' as const), hash: hashV, how: fc.constantFrom('enc', 'raw', 'raw'), key: mostlyValidKeyV, method: fc.oneof({ weight: 8, arbitrary: fc.constant('DELETE') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT') }) });
    const list = fc.record({ kind: fc.constant('list' as const), key: apiKeyV, query: queryFor('/v1/auth/keys') });
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: post }, { weight: 3, arbitrary: del }, { weight: 1, arbitrary: list }), async (r) => {
        const headers: Record<string, string | string[]> = {};
        if (r.key !== undefined) headers['X-API-Key'] = Array.isArray(r.key) ? r.key.map(hv) : hv(r.key);
        let s: Sent;
        if (r.kind === 'post') {
          if (r.admin !== undefined) headers['X-Admin-Token'] = hv(r.admin);
          if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
          let body: string | Buffer = r.body;
          if (r.encoding !== null) {
            headers['Content-Encoding'] = r.encoding.split(' ')[0];
            if (r.encoding === 'gzip') body = zlib.gzipSync(r.body);
            if (r.encoding === 'deflate') body = zlib.deflateSync(r.body);
            if (r.encoding === 'br') body = zlib.brotliCompressSync(r.body);
          }
          s = { method: 'POST', path: '/v1/auth/keys', headers, body, plainBody: r.body };
        } else if (r.kind === 'delete') {
          s = { method: r.method, path: `/v1/auth/keys/${pct(r.hash, r.how === 'raw' ? RAW : UNRESERVED)}`.slice(0, 8_000), headers };
        } else {
          s = { method: 'GET', path: `/v1/auth/keys?${r.query}`.slice(0, 8_000), headers };
        }
        check(s, await call(s));
      }),
      params(400),
    );
    report('key creation and revocation', t0);
  }, 120_000);

  it('when unknown and malformed paths are asked, then 404 envelopes (or another 4xx envelope), never a 5xx', async () => {
    const t0 = performance.now();
    const segmentV = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('v1', 'v2', 'ohlcv', 'health', 'auth', 'keys', 'features', 'available', 'metrics', 'docs', 'openapi.json', 'admin', '.env', '.git', 'graphiql') },
      { weight: 2, arbitrary: fc.constantFrom('%', '%zz', '%00', '%2F', '%2e%2e', '..', '.', '', '%C0%AF', '%E0%A4%A', '%FF', ';', '~', '*', '::', '@', '$', "'", '"', '<', '>', '`', '{', '}', '|', '^', '[', ']') },
      { weight: 2, arbitrary: junk.map((s) => pct(s, RAW)) },
      { weight: 1, arbitrary: junk.map((s) => pct(s, UNRESERVED)) },
    );
    const pathV = fc.oneof(
      { weight: 8, arbitrary: fc.array(segmentV, { minLength: 1, maxLength: 6 }).map((segs) => `/${segs.join('/')}`) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom('/v1/auth/keys/', '/docs/assets/', '/docs/', '/v1/openapi.json/'), segmentV).map(([p, seg]) => p + seg) },
      { weight: 1, arbitrary: fc.constantFrom('*', '/', '//', '///health', '/docs/init.js', '/docs/assets/swagger-ui.css', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/%2e%2e%2fpackage.json', 'http://localhost/health', 'http://localhost/v1/nope', '/?', '/#', '/%', '/v1', '/v1/', '/v1/auth', '/v1/auth/keys/', '/v1/auth/keys//x') },
    ).filter((p) => !isGraphqlPath(p));
    await fc.assert(
      fc.asyncProperty(pathV, fc.option(junk, { freq: 2 }), fc.constantFrom('GET', 'GET', 'POST', 'DELETE', 'HEAD', 'PUT'), apiKeyV, async (path, query, method, key) => {
        const headers: Record<string, string | string[]> = {};
        if (key !== undefined) headers['X-API-Key'] = Array.isArray(key) ? key.map(hv) : hv(key);
        const s: Sent = { method, path: (query === null ? path : `${path}?${pct(query, RAW)}`).slice(0, 8_000), headers };
        check(s, await call(s));
      }),
      params(300),
    );
    report('unknown paths', t0);
  }, 120_000);

  // ---- GraphQL ---------------------------------------------------------------------------

  /** A GraphQL literal: mostly the string of a plausible value, sometimes of another type. */
  const lit = (v: fc.Arbitrary<string>) =>
    fc.oneof(
      { weight: 24, arbitrary: v.map((x) => JSON.stringify(x)) },
      { weight: 1, arbitrary: fc.integer().map(String) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('null', 'true', 'false', '1.5', '-0', '1e400', '99999999999', '[]', '{}', '["a", 1]', '{a: 1}', 'ENUMISH', '$undeclared', '"""block\n"string"\n"""', '"\\u0000"', '"\\uD800"', '"\\x"', '"', '"""'),
      },
    );
  const intLit = fc.oneof(
    fc.integer({ min: -5, max: 10_005 }).map(String),
    fc.constantFrom('0', '1', '10000', '10001', '2147483647', '2147483648', '-2147483649', '1.0', '1e3', 'null', '"10"', 'true', '[1]'),
  );
  const boolLit = fc.constantFrom('true', 'false', 'null', '"true"', '1', 'TRUE', '[true]');
  const listLit = (item: fc.Arbitrary<string>) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.array(item, { maxLength: 12 }).map((a) => `[${a.map((x) => JSON.stringify(x)).join(', ')}]`) },
      { weight: 1, arbitrary: item.map((x) => JSON.stringify(x)) },
      { weight: 1, arbitrary: fc.constantFrom('[]', 'null', '[null]', '[1, 2]', '[["rsi_14"]]', '{a: "b"}') },
    );

  /** `(name: value, ...)`, each argument usually there, sometimes a stranger or a duplicate. */
  const args = (spec: Array<[string, fc.Arbitrary<string>]>) =>
    fc
      .tuple(
        fc.tuple(...spec.map(([name, v]) => fc.option(v.map((x) => `${name}: ${x}`), { freq: 15 }))),
        rarely(fc.constantFrom('bogus: 1', `${spec[0][0]}: "dup"`, 'limit: 5', '__typename: 1'), 10),
      )
      .map(([parts, extra]) => {
        const all = [...parts, extra].filter((p): p is string => p !== null);
        return all.length ? `(${all.join(', ')})` : '';
      });
  const fields = (list: string[]) =>
    fc
      .tuple(fc.subarray(list, { minLength: 1 }), rarely(fc.constantFrom('__typename', 'bogus', 'symbol', 'data', 'count(x: 1)'), 8))
      .map(([a, extra]) => `{ ${[...a, ...(extra === null ? [] : [extra])].join(' ')} }`);
  const alias = rarely(fc.constantFrom('a', 'b', 'x1', 'data', 'me', 'market', 'count'), 4).map((a) => (a === null ? '' : `${a}: `));

  const exchangeL = lit(fc.constantFrom('perp', 'spot', 'PERP', 'nope', ''));
  const symbolL = lit(symbolV);
  const timeframeL = lit(timeframeV);
  const timeL = lit(timeV);
  const candlesV = fc
    .tuple(alias, args([['timeframe', timeframeL], ['start', timeL], ['end', timeL], ['limit', intLit]]), fields(['count', 'nextStart', 'data { time open high low close volume }', 'columns { time close volume }']))
    .map(([a, x, f]) => `${a}candles${x} ${f}`);
  const fundingV = fc
    .tuple(alias, args([['start', timeL], ['end', timeL], ['normalized', boolLit]]), fields(['count', 'nextStart', 'data { time rate rateNormalized premium }']))
    .map(([a, x, f]) => `${a}funding${x} ${f}`);
  const featuresGqlV = fc
    .tuple(alias, args([['timeframe', timeframeL], ['names', listLit(featureNameV)], ['start', timeL], ['end', timeL]]), fields(['features', 'count', 'nextStart', 'data { time values { name value } }']))
    .map(([a, x, f]) => `${a}features${x} ${f}`);
  const qualityV = fc
    .tuple(alias, args([['timeframe', timeframeL]]), fields(['timeframe', 'dqs', 'band', 'computedAt', 'components { gapRateScore anomalyScore consistencyScore freshnessScore }', 'expectedCandles', 'presentCandles', 'missingIntervals { start end }']))
    .map(([a, x, f]) => `${a}quality${x} ${f}`);
  const marketBody = fc
    .tuple(fc.array(fc.oneof(candlesV, fundingV, featuresGqlV, qualityV, fc.constantFrom('symbol', 'exchange', 'coverage { timeframe first last }', '... on Market { symbol }', '...M')), { minLength: 1, maxLength: 4 }))
    .map(([sel]) => `{ ${sel.join(' ')} }`);
  const rootV = fc.oneof(
    fc.tuple(alias, args([['exchange', exchangeL], ['symbol', symbolL]]), marketBody).map(([a, x, b]) => `${a}market${x} ${b}`),
    fc.tuple(alias, args([['exchange', exchangeL]]), marketBody).map(([a, x, b]) => `${a}markets${x} ${b}`),
    fc
      .tuple(alias, args([['exchange', exchangeL], ['symbols', listLit(symbolV)], ['timeframe', timeframeL], ['field', lit(fieldV)], ['start', timeL], ['end', timeL]]), fields(['symbols', 'exchange', 'timeframe', 'field', 'count', 'nextStart', 'data { time values { symbol value } }']))
      .map(([a, x, f]) => `${a}multiAsset${x} ${f}`),
    fc.tuple(alias, fields(['userId', 'tier', 'keyHint', 'quota { dayLimit dayRemaining minuteLimit minuteRemaining minuteReset dayReset }', 'limits { timeframes historyDays multiAssetSymbols }'])).map(([a, f]) => `${a}me ${f}`),
    fc.tuple(alias, fields(['keyHash', 'keyHint', 'userId', 'tier', 'label', 'createdAt', 'status', 'revokedAt'])).map(([a, f]) => `${a}apiKeys ${f}`),
    fc.tuple(alias, fields(['name', 'description', 'category'])).map(([a, f]) => `${a}featureCatalogue ${f}`),
    fc.constantFrom('__typename', '__schema { queryType { name } types { name kind } }', '__type(name: "Market") { fields { name args { name } } }', '__type(name: 1) { name }', 'bogus', 'me', 'market { symbol }', '...Q', '... on Query { me { tier } }', '... on Market { symbol }'),
  );
  const directiveV = rarely(fc.constantFrom('@skip(if: true)', '@skip(if: false)', '@include(if: $undeclared)', '@include', '@unknown', '@deprecated', '@skip(if: true) @skip(if: false)'), 8);
  const documentV = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.oneof({ weight: 12, arbitrary: fc.constantFrom('', '', 'query ', 'query Q ') }, { weight: 1, arbitrary: fc.constantFrom('query Q($x: Int) ', 'mutation ', 'subscription ', '{', 'fragment F on Query ', 'query Q { me } ') }),
          fc.array(fc.tuple(rootV, directiveV), { minLength: 1, maxLength: 3 }),
          fc.nat(9),
        )
        .map(([op, roots, defineFragments]) => {
          // A directive goes after the arguments: only roots without any get one. Most second
          // and third roots get an alias of their own (same-named fields with other arguments conflict).
          const sel = roots
            .map(([r, d]) => (d === null ? r : r.replace(/^(\w+(?::\s*\w+)?)(?=\s*\{)/, `$1 ${d}`)))
            .map((r, i) => (i > 0 && defineFragments > 1 && !/^\w+\s*:/.test(r) ? `r${i}: ${r}` : r))
            .join(' ');
          let doc = `${op}{ ${sel} }`;
          // The fragments spread, almost always defined (an unused or undefined one is a validation error).
          if (defineFragments > 0 && doc.includes('...M')) doc += ' fragment M on Market { symbol exchange }';
          if (defineFragments > 0 && doc.includes('...Q')) doc += ' fragment Q on Query { me { tier } }';
          return doc;
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('perp', 'spot'), hashV)
        .map(([, h]) => `mutation { revokeApiKey(keyHash: ${JSON.stringify(h)}) { keyHash status revokedAt } }`),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof(fc.constantFrom('{', '}', '(', ')', '[', ']', ':', '$', '...', '@', '!', '=', '|', '&', '#', '"', '"""', ',', 'query', 'mutation', 'fragment', 'on', 'me', 'market', 'tier', 'candles', 'null', '1', '1.5e3', '"x"', '\n', ' '), fc.string({ maxLength: 4 })), { maxLength: 40 })
        .map((tokens) => tokens.join(' ')),
    },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 60 }), junk) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,10}$/), { minLength: 1, maxLength: 6 })
        .map((names) => `{ ${names.reduceRight((inner, n, i) => (i === names.length - 1 ? n : `${n} { ${inner} }`), '')} }`),
    },
  );

  const gqlHeaders = (key: string | string[] | undefined, extra: Record<string, string> = {}) => {
    const headers: Record<string, string | string[]> = { 'Content-Type': 'application/json', ...extra };
    if (key !== undefined) headers['X-API-Key'] = Array.isArray(key) ? key.map(hv) : hv(key);
    return headers;
  };
  const postGql = (payload: unknown, key: string | string[] | undefined, extra: Record<string, string> = {}): Sent => {
    const body = JSON.stringify(payload);
    return { method: 'POST', path: '/graphql', headers: gqlHeaders(key, extra), body };
  };

  it('when GraphQL gets random documents (garbage, unknown fields, real fields with random arguments), then data or coded errors, never a 5xx, nothing leaks', async () => {
    const t0 = performance.now();
    await fc.assert(
      fc.asyncProperty(documentV, mostlyValidKeyV, fc.constantFrom(undefined, 'gzip', 'br'), async (query, key, encoding) => {
        const s = postGql({ query }, key, encoding ? { 'Accept-Encoding': encoding } : {});
        check(s, await call(s));
      }),
      params(450),
    );
    report('GraphQL documents', t0);
  }, 120_000);

  const VARIABLE_DOCS: Array<[string, Record<string, fc.Arbitrary<unknown>>]> = [
    [
      'query Q($exchange: String!, $symbol: String!, $tf: String!, $start: String!, $end: String, $limit: Int) { market(exchange: $exchange, symbol: $symbol) { candles(timeframe: $tf, start: $start, end: $end, limit: $limit) { count nextStart data { time close } } } }',
      { exchange: exchangeV, symbol: symbolV, tf: timeframeV, start: timeV, end: timeV, limit: fc.oneof(fc.integer({ min: -2, max: 10_002 }), fc.constantFrom(0, 1, 10_000, 10_001, 2 ** 31, -(2 ** 31) - 1, 1.5, 1e300)) },
    ],
    [
      'query Q($symbol: String!, $start: String!, $end: String, $normalized: Boolean!) { market(exchange: "perp", symbol: $symbol) { funding(start: $start, end: $end, normalized: $normalized) { count data { time rate rateNormalized premium } } } }',
      { symbol: symbolV, start: timeV, end: timeV, normalized: fc.boolean() },
    ],
    [
      'query Q($symbol: String!, $tf: String!, $names: [String!]!, $start: String!, $end: String) { market(exchange: "perp", symbol: $symbol) { features(timeframe: $tf, names: $names, start: $start, end: $end) { features count data { time values { name value } } } quality(timeframe: $tf) { timeframe dqs } } }',
      { symbol: symbolV, tf: timeframeV, names: fc.array(featureNameV, { maxLength: 25 }), start: timeV, end: timeV },
    ],
    [
      'query Q($exchange: String!, $symbols: [String!]!, $tf: String!, $field: String!, $start: String!, $end: String) { multiAsset(exchange: $exchange, symbols: $symbols, timeframe: $tf, field: $field, start: $start, end: $end) { symbols count nextStart data { time values { symbol value } } } }',
      { exchange: exchangeV, symbols: fc.array(symbolV, { maxLength: 40 }), tf: timeframeV, field: fieldV, start: timeV, end: timeV },
    ],
    ['query Q($exchange: String) { markets(exchange: $exchange) { symbol coverage { timeframe first last } } }', { exchange: exchangeV }],
    ['mutation Q($h: String!) { revokeApiKey(keyHash: $h) { keyHash status revokedAt } }', { h: fc.constant(null) }],
  ];

  it('when GraphQL variables are of random values and wrong types, then data or coded errors, never a 5xx, nothing leaks', async () => {
    const t0 = performance.now();
    const wrong = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(null), fc.constantFrom(1, -1, 0.5, true, [], {}, [null], ['a', 1], { a: 'b' }, 'x'.repeat(5000)));
    const request = fc.nat(VARIABLE_DOCS.length - 1).chain((i) => {
      const [doc, spec] = VARIABLE_DOCS[i];
      const hashes = i === VARIABLE_DOCS.length - 1 ? { h: hashV } : {};
      // Every variable given (one of the wrong type now and then), and one left out one time in eight.
      const vars = fc
        .tuple(
          fc.record(Object.fromEntries(Object.entries({ ...spec, ...hashes }).map(([n, v]) => [n, fc.oneof({ weight: 12, arbitrary: v as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: wrong })]))),
          rarely(fc.constantFrom(...Object.keys(spec)), 8),
        )
        .map(([v, drop]) => Object.fromEntries(Object.entries(v).filter(([n]) => n !== drop)));
      const variables = fc.oneof(
        { weight: 8, arbitrary: fc.tuple(vars, fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })).map(([v, x]) => ({ ...x, ...v })) },
        { weight: 1, arbitrary: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('{"symbol":"BTC-USDT"}', [], null, 'null')) },
      );
      const operationName = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(undefined, 'Q') }, { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'Nope', '', 1, ['Q']) });
      return fc.tuple(fc.constant(doc), variables, operationName);
    });
    await fc.assert(
      fc.asyncProperty(request, mostlyValidKeyV, async ([query, variables, operationName], key) => {
        const s = postGql({ query, variables, operationName }, key);
        check(s, await call(s));
      }),
      params(300),
    );
    report('GraphQL variables', t0);
  }, 120_000);

  it('when GraphQL comes over odd transports (GET, batches, wrong content types, junk bodies, other methods), then data or coded errors, never a 5xx', async () => {
    const t0 = performance.now();
    const op = fc.oneof({ weight: 3, arbitrary: documentV }, { weight: 1, arbitrary: fc.constant('{ me { tier } }') });
    const getV = fc
      .record({
        query: fc.option(op, { freq: 8 }),
        variables: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? ''), junk), { freq: 2 }),
        operationName: fc.option(fc.constantFrom('Q', '', 'x'), { freq: 2 }),
        extensions: rarely(fc.constantFrom('{"persistedQuery":{"version":1,"sha256Hash":"' + 'a'.repeat(64) + '"}}', '{', '[]'), 4),
        how: fc.constantFrom('enc', 'enc', 'raw'),
        repeat: fc.boolean(),
        preflight: fc.constantFrom<Record<string, string> | undefined>(undefined, { 'apollo-require-preflight': 'true' }, { 'x-apollo-operation-name': 'Q' }, { 'Content-Type': 'application/json' }),
        accept: fc.constantFrom(undefined, 'text/html', 'application/json', 'application/graphql-response+json', '*/*', 'multipart/mixed; deferSpec=20220824', 'text/event-stream'),
        path: fc.constantFrom('/graphql', '/graphql', '/graphql/', '/GRAPHQL', '/graphql/x', '/graphql;x'),
        key: apiKeyV,
      })
      .map((r): Sent => {
        const e = (x: string) => pct(x, r.how === 'raw' ? RAW : UNRESERVED);
        const q = [
          ...(r.query === null ? [] : [`query=${e(r.query)}`]),
          ...(r.repeat && r.query !== null ? [`query=${e('{ __typename }')}`] : []),
          ...(r.variables === null ? [] : [`variables=${e(r.variables)}`]),
          ...(r.operationName === null ? [] : [`operationName=${e(r.operationName)}`]),
          ...(r.extensions === null ? [] : [`extensions=${e(r.extensions)}`]),
        ].join('&');
        const headers: Record<string, string | string[]> = { ...(r.preflight ?? {}) };
        if (r.accept) headers.Accept = r.accept;
        if (r.key !== undefined) headers['X-API-Key'] = Array.isArray(r.key) ? r.key.map(hv) : hv(r.key);
        return { method: 'GET', path: `${r.path}${q ? `?${q}` : ''}`.slice(0, 12_000), headers };
      });
    const payloadV = fc.oneof(
      { weight: 3, arbitrary: op.map((query) => JSON.stringify({ query })) },
      { weight: 2, arbitrary: fc.array(op.map((query) => ({ query })), { maxLength: 3 }).map((a) => JSON.stringify(a)) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? '') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('', '{', 'null', '"{ me { tier } }"', '{ me { tier } }', 'query=%7B%20me%20%7B%20tier%20%7D%20%7D', '{"query":123}', '{"query":["{ me { tier } }"]}', '{"query":"{ me { tier } }","variables":"{}"}', '{"query":"{ me { tier } }","extensions":{"persistedQuery":{"version":2}}}', '{"query":"{ me { tier } }"}{"query":"x"}'),
      },
      { weight: 1, arbitrary: junk },
    );
    const postV = fc
      .record({
        payload: payloadV,
        contentType: fc.constantFrom(undefined, 'application/json', 'application/json', 'application/json; charset=utf-8', 'application/graphql', 'application/graphql-response+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/json; charset=utf-16', '*/*', ''),
        encoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'gzip (not compressed)', 'deflate (not compressed)', 'br', 'x-unknown'),
        method: fc.constantFrom('POST', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
        preflight: fc.boolean(),
        key: apiKeyV,
      })
      .map((r): Sent => {
        const headers: Record<string, string | string[]> = {};
        if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
        if (r.preflight) headers['apollo-require-preflight'] = 'true';
        if (r.key !== undefined) headers['X-API-Key'] = Array.isArray(r.key) ? r.key.map(hv) : hv(r.key);
        let body: string | Buffer = r.payload;
        if (r.encoding !== undefined) {
          headers['Content-Encoding'] = r.encoding.split(' ')[0];
          if (r.encoding === 'gzip') body = zlib.gzipSync(r.payload);
          if (r.encoding === 'br') body = zlib.brotliCompressSync(r.payload);
        }
        return { method: r.method, path: '/graphql', headers, body: r.method === 'HEAD' ? undefined : body, plainBody: r.payload };
      });
    await fc.assert(
      fc.asyncProperty(fc.oneof(getV, postV), async (s) => {
        check(s, await call(s));
      }),
      params(350),
    );
    report('GraphQL transports', t0);
  }, 120_000);

  it('when GraphQL documents are huge, deep, wide or explode through fragments, then a coded answer within seconds, never a 5xx', async () => {
    const t0 = performance.now();
    const leafV = fc.constantFrom('me { tier }', 'featureCatalogue { name }', '__typename', 'market(exchange: "perp", symbol: "BTC-USDT") { symbol }', 'bogus', 'market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "0", limit: 10) { count } }');
    const shapeV = fc.oneof(
      fc.tuple(fc.constant('padding' as const), fc.integer({ min: 1_000, max: 500_000 }), fc.constantFrom(' ', '\n', '#', ',')),
      fc.tuple(fc.constant('aliases' as const), fc.integer({ min: 10, max: 5_000 }), leafV),
      fc.tuple(fc.constant('repeats' as const), fc.integer({ min: 10, max: 8_000 }), leafV),
      fc.tuple(fc.constant('inline' as const), fc.integer({ min: 1, max: 5_000 }), leafV),
      fc.tuple(fc.constant('nested' as const), fc.integer({ min: 1, max: 12_000 }), fc.constantFrom('a', 'me', 'market')),
      fc.tuple(fc.constant('listDepth' as const), fc.integer({ min: 1, max: 12_000 }), fc.constantFrom('[', '{a: ')),
      fc.tuple(fc.constant('fragments' as const), fc.integer({ min: 1, max: 80 }), leafV, fc.integer({ min: 2, max: 4 })),
      fc.tuple(fc.constant('variables' as const), fc.integer({ min: 1, max: 3_000 }), fc.constantFrom('String', 'Int!', '[String!]!', 'Bogus')),
      fc.tuple(fc.constant('directives' as const), fc.integer({ min: 1, max: 5_000 }), fc.constantFrom('@skip(if: false)', '@include(if: true)', '@x')),
      fc.tuple(fc.constant('longString' as const), fc.integer({ min: 1_000, max: 300_000 }), fc.constantFrom('x', '\\u00e9', '😀', '\\"')),
    );
    const build = (shape: [string, number, string, number?]): string => {
      const [kind, n, part, fanout = 2] = shape;
      switch (kind) {
        case 'padding':
          return part === '#' ? `{ me { tier } }\n${'#'.repeat(n)}` : `{ me { tier } }${part.repeat(n)}`;
        case 'aliases':
          return `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${part}`).join(' ')} }`;
        case 'repeats':
          return `{ ${`${part} `.repeat(n)}}`;
        case 'inline':
          return `{ ${'... on Query { '.repeat(n)}${part}${' }'.repeat(n)} }`;
        case 'nested':
          return `{ ${`${part} { `.repeat(n)}tier${' }'.repeat(n)} }`;
        case 'listDepth': {
          const close = part === '[' ? ']' : '}';
          return `{ market(exchange: "perp", symbol: ${part.repeat(n)}"x"${close.repeat(n)}) { symbol } }`;
        }
        case 'fragments': {
          let doc = `{ ...F${n} }\nfragment F0 on Query { ${part} }\n`;
          for (let i = 1; i <= n; i++) doc += `fragment F${i} on Query { ${`...F${i - 1} `.repeat(fanout)}}\n`;
          return doc;
        }
        case 'variables':
          return `query Q(${Array.from({ length: n }, (_, i) => `$v${i}: ${part}`).join(', ')}) { me { tier } }`;
        case 'directives':
          return `{ me ${`${part} `.repeat(n)}{ tier } }`;
        default:
          return `{ market(exchange: "perp", symbol: "${part.repeat(n)}") { symbol } }`;
      }
    };
    await fc.assert(
      fc.asyncProperty(shapeV, fc.constantFrom(keys.scale, keys.pro), async (shape, key) => {
        const s = postGql({ query: build(shape as [string, number, string, number?]) }, key);
        const g = await call(s);
        check(s, g);
        if (g.ms > 5_000) fail(`an answer after ${Math.round(g.ms)} ms`, s, g);
      }),
      params(200),
    );
    report('GraphQL huge, deep and wide documents', t0);
  }, 180_000);

  // ---- the log ---------------------------------------------------------------------------

  it('when the fuzzing is over, then the server logged no unexpected error', () => {
    const unexpected = srv
      .logs()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Json)
      .filter((l) => l.level >= 50);
    // The message and where it was thrown: the first frames of the stack.
    expect(unexpected.map((l) => `${l.msg}: ${String(l.err?.stack ?? l.err?.message ?? '').split('\n').slice(0, 4).join(' | ')}`)).toEqual([]);
  });
}

// PostgreSQL gets half the runs: the same code paths; what differs is the database's own errors.
describe.each(databaseCases())('fuzzing bad input over REST and GraphQL on $name', ({ name, create }) => fuzzSuite(create, name === 'pglite' ? 1 : 0.5));

