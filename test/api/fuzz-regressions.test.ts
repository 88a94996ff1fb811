/**
 * The smallest requests the fuzzing (fuzz.test.ts) found failing, one per defect, kept as plain
 * cases so that a fix is checked directly (and the defect is readable without a fast-check run).
 */
import { checkGraphql, checkRest } from '../helpers/fuzz/checks';
import { ADMIN_TOKEN } from '../helpers/fuzz/inputs';
import { send, type Sent } from '../helpers/fuzz/wire';
import { startTestServer, type TestServer } from '../helpers/server';

describe('bad input the fuzzing found', () => {
  let srv: TestServer;
  let key: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ADMIN_TOKEN } });
    key = await srv.key('pro');
  });
  afterAll(() => srv?.stop());
  const sendTo = (s: Sent) => send(srv.url, s);

  it.each(['/v1/auth/keys/%zz', '/v1/auth/keys/%E0%A4%A', '/v1/auth/keys/%C0%AF', '/docs/assets/%zz'])(
    'when a path parameter is not valid percent-encoding (%s), then a 4xx envelope, not 500',
    async (path) => {
      for (const method of ['DELETE', 'GET']) {
        const s: Sent = { method, path, headers: { 'X-API-Key': key } };
        checkRest(s, await sendTo(s));
      }
    },
  );

  it.each([
    ['gzip', '{}'],
    ['gzip', ''],
    ['deflate', '{"user_id":"x"}'],
    ['br', 'not brotli'],
  ])('when POST /v1/auth/keys says Content-Encoding %s over a body that is not, then 400 INVALID_PARAMETER naming the body, not 500', async (encoding, body) => {
    const s: Sent = { method: 'POST', path: '/v1/auth/keys', headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json', 'Content-Encoding': encoding }, body };
    const g = await sendTo(s);
    checkRest(s, g);
    expect(JSON.parse(g.text)).toMatchObject({ error: 'INVALID_PARAMETER', message: expect.stringMatching(/^body: /) });
  });

  it.each(['\u0000', 'desk\u0007', 'tab\there'])('when a new key\'s label holds a control character (%j), then 400 INVALID_PARAMETER naming label, not 500 (PostgreSQL text cannot hold NUL)', async (label) => {
    const s: Sent = {
      method: 'POST',
      path: '/v1/auth/keys',
      headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_id: '00000000-0000-1000-8000-000000000000', tier: 'free', label }),
    };
    const g = await sendTo(s);
    checkRest(s, g);
    expect(g.status).toBe(400);
    expect(JSON.parse(g.text)).toMatchObject({ error: 'INVALID_PARAMETER', message: 'label must not contain control characters' });
  });

  it.each<[unknown]>([[{ toString: false }], [{ toString: 'x', valueOf: 1 }], [['pro']], [{ tier: 'pro' }]])('when a new key\'s tier is a JSON object or array (%j), then 400 INVALID_TIER, not 500 (turning it into text threw)', async (tier) => {
    const s: Sent = {
      method: 'POST',
      path: '/v1/auth/keys',
      headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_id: '00000000-0000-1000-8000-000000000000', tier }),
    };
    const g = await sendTo(s);
    checkRest(s, g);
    expect(g.status).toBe(400);
    expect(JSON.parse(g.text)).toMatchObject({ error: 'INVALID_TIER', message: 'tier is not one of free, pro, scale' });
  });

  it.each(['0070-01-01', '0099-12-31T23:59:59Z'])('when start is in the first century (%s), then INVALID_TIMESTAMP, not a date of the 1900s', async (start) => {
    const r = await srv.getJson(`/v1/ohlcv?symbol=BTC-USDT&exchange=spot&timeframe=1h&start=${start}&end=2024-01-01`, key);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('INVALID_TIMESTAMP');
  });

  it('when GraphQL documents nest thousands of levels deep, then 400 QUERY_TOO_COMPLEX before graphql-js recurses into them', async () => {
    for (const query of [`{ ${'... on Query { '.repeat(3_000)}me { tier }${' }'.repeat(3_000)} }`, `{ market(exchange: "perp", symbol: ${'['.repeat(5_000)}"x"${']'.repeat(5_000)}) { symbol } }`]) {
      const s: Sent = { method: 'POST', path: '/graphql', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: JSON.stringify({ query }) };
      const g = await sendTo(s);
      checkGraphql(s, g);
      expect(g.status).toBe(400);
      expect(JSON.parse(g.text).errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    }
  });

  it('when a fragment spreads the next one twice, 60 times over, then the cost is measured at once (not 2^60 walks)', async () => {
    let doc = '{ ...F60 }\nfragment F0 on Query { me { tier } }\n';
    for (let i = 1; i <= 60; i++) doc += `fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }\n`;
    const s: Sent = { method: 'POST', path: '/graphql', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: JSON.stringify({ query: doc }) };
    const g = await sendTo(s);
    checkGraphql(s, g);
    expect(JSON.parse(g.text).errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(g.ms).toBeLessThan(2_000);
  });

  it.each([
    ['a subscription (the schema has none)', { query: 'subscription { me { tier } }' }],
    ['a persisted-query hash that does not match the query', { query: '{ me { tier } }', extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }],
  ])('when GraphQL gets %s, then a client error with a code, not a masked DATABASE_ERROR', async (_what, payload) => {
    const s: Sent = { method: 'POST', path: '/graphql', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: JSON.stringify(payload) };
    checkGraphql(s, await sendTo(s));
  });

  it.each([
    ['an undeclared variable', 'subscription { featureCatalogue @include(if: $undeclared) { category } market { quality { missingIntervals { start end } } } }', undefined],
    ['a declared variable', 'subscription S($on: Boolean!) { candleClosed(symbol: "BTC-USDT", exchange: "perp", timeframe: "1m") @skip(if: $on) { time } }', { on: false }],
    ['a fragment', 'subscription { ...F }\nfragment F on Subscription { candleClosed(symbol: "BTC-USDT", exchange: "perp", timeframe: "1m") @include(if: $on) { time } }', undefined],
  ])('when a GraphQL subscription over HTTP puts @skip/@include at its root with %s, then 400 GRAPHQL_VALIDATION_FAILED (graphql-js 16 would throw), not 500', async (_what, query, variables) => {
    for (const method of ['POST', 'GET']) {
      const s: Sent =
        method === 'POST'
          ? { method, path: '/graphql', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: JSON.stringify({ query, variables }) }
          : { method, path: `/graphql?query=${encodeURIComponent(query)}`, headers: { 'X-API-Key': key, 'Apollo-Require-Preflight': 'true' } };
      const g = await sendTo(s);
      checkGraphql(s, g);
      expect(g.status).toBe(400);
      const [error] = JSON.parse(g.text).errors;
      expect(error).toMatchObject({ message: expect.stringMatching(/must not use `@skip` or `@include` directives in the top level selection/), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
      expect(error.locations.length).toBeGreaterThan(0);
    }
  });

  it.each([
    ['not JSON', '{"query":', {}],
    ['over 64 KB', JSON.stringify({ query: `{ me { tier } }${' '.repeat(70_000)}` }), {}],
    ['Content-Encoding gzip over a plain body', '{"query":"{ me { tier } }"}', { 'Content-Encoding': 'gzip' }],
  ])('when the GraphQL body is %s, then a GraphQL error (extensions.code INVALID_PARAMETER), not the REST envelope or a 500', async (_what, body, extra) => {
    const s: Sent = { method: 'POST', path: '/graphql', headers: { 'Content-Type': 'application/json', 'X-API-Key': key, ...extra }, body };
    const g = await sendTo(s);
    checkGraphql(s, g);
    expect(g.status).toBe(400);
    expect(JSON.parse(g.text).errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', request_id: g.headers['x-request-id'] });
  });
});
