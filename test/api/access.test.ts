/**
 * Access through both transports: authentication, quotas and their headers, key management,
 * the error envelope and GraphQL extensions. Memory quota store, embedded database.
 */
import { randomUUID } from 'node:crypto';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';
import type { Json } from '../helpers/json';

const ME = '{ me { tier keyHint quota { dayRemaining minuteRemaining } } }';
const T = Date.UTC(2026, 2, 10, 12, 30, 18); // 42 s before the next minute

const json = async (r: Response) => (await r.json()) as Json;

describe('access over REST and GraphQL', () => {
  const clock = manualClock(T);
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ clock: clock.now, env: { ADMIN_TOKEN: 'admin-secret-token', UPGRADE_URL: 'https://example.com/up' } });
  });
  afterAll(() => srv?.stop());
  beforeEach(() => clock.set(T));

  describe('authentication', () => {
    it.each([
      ['no key', undefined, 'missing X-API-Key header'],
      ['a malformed key', 'nope', 'invalid API key'],
      ['an unknown key', 'qp_' + 'x'.repeat(43), 'invalid API key'],
    ])('when REST gets %s, then 401 UNAUTHORIZED in the envelope and no quota headers', async (_w, key, message) => {
      const res = await srv.rest('/v1/auth/keys', { key });
      expect(res.status).toBe(401);
      expect(await json(res)).toEqual({ error: 'UNAUTHORIZED', message, request_id: res.headers.get('x-request-id') });
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    });

    it('when GraphQL gets no key, then HTTP 401 with extensions.code UNAUTHORIZED and the request id', async () => {
      const res = await srv.gql(ME);
      expect(res.status).toBe(401);
      const body = await json(res);
      expect(body.errors[0]).toMatchObject({
        message: 'missing X-API-Key header',
        extensions: { code: 'UNAUTHORIZED', request_id: res.headers.get('x-request-id') },
      });
      expect(body.data).toBeUndefined();
    });

    it('when a 401 happens, then no quota is consumed', async () => {
      const key = await srv.key('free');
      await srv.rest('/v1/auth/keys', { key: key + 'x' });
      const res = await srv.rest('/v1/auth/keys', { key });
      expect(res.headers.get('x-ratelimit-remaining')).toBe('999');
    });
  });

  describe('quota headers', () => {
    it('when a free key succeeds, then every X-RateLimit and IETF header is set', async () => {
      const key = await srv.key('free');
      const res = await srv.rest('/v1/auth/keys', { key });
      expect(res.status).toBe(200);
      expect(Object.fromEntries([...res.headers].filter(([k]) => /ratelimit/i.test(k)))).toEqual({
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': '999',
        'x-ratelimit-reset': String(Date.UTC(2026, 2, 10, 12, 31) / 1000),
        'x-ratelimit-limit-minute': '10',
        'x-ratelimit-remaining-minute': '9',
        'ratelimit-policy': '"minute";q=10;w=60, "day";q=1000;w=86400',
        ratelimit: '"minute";r=9;t=42',
      });
    });

    it('when a scale key succeeds over GraphQL, then the headers describe the minute window', async () => {
      const key = await srv.key('scale');
      const res = await srv.gql(ME, undefined, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('500');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('499');
      expect((await json(res)).data.me).toEqual({ tier: 'scale', keyHint: expect.stringMatching(/^qp_.{6}…$/), quota: { dayRemaining: null, minuteRemaining: 499 } });
    });

    it('when a request fails validation, then it still counts and carries the headers', async () => {
      const key = await srv.key('pro');
      const res = await srv.rest('/v1/auth/keys/not-a-hash', { key, method: 'DELETE' });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-ratelimit-remaining-minute')).toBe('99');
    });
  });

  describe('a refused /graphql body, in the check order (401, 429, then 400)', () => {
    const post = (body: string, key?: string, type = 'application/json') =>
      srv.rest('/graphql', { method: 'POST', key, headers: { 'Content-Type': type }, body });
    const refusal = async (res: Response) => ({ status: res.status, errors: (await json(res)).errors });

    it('when the key is bad, then 401 whatever the body', async () => {
      for (const [body, type] of [['{bad', 'application/json'], [ME, 'text/plain'], ['x'.repeat(70_000), 'application/json']]) {
        const res = await post(body, 'nope', type);
        expect(await refusal(res)).toEqual({ status: 401, errors: [{ message: 'invalid API key', extensions: { code: 'UNAUTHORIZED', request_id: res.headers.get('x-request-id') } }] });
      }
    });

    it('when the quota is used up, then 429 with Retry-After, whatever the body', async () => {
      const key = await srv.key('free');
      for (let i = 0; i < 10; i++) expect((await srv.gql(ME, undefined, key)).status).toBe(200);
      const res = await post('{bad', key);
      expect(await refusal(res)).toEqual({ status: 429, errors: [expect.objectContaining({ extensions: { code: 'RATE_LIMIT_EXCEEDED', request_id: res.headers.get('x-request-id'), retry_after_secs: 42 } })] });
      expect(res.headers.get('retry-after')).toBe('42');
      expect(res.headers.get('x-ratelimit-remaining-minute')).toBe('0');
    });

    it.each([
      ['not JSON', '{bad', 'application/json', 'body: request body is not valid JSON'],
      ['over 64 KB', JSON.stringify({ query: ME + ' '.repeat(70_000) }), 'application/json', 'body: request body is too large'],
      ['not application/json', JSON.stringify({ query: ME }), 'text/plain', 'body: Content-Type must be application/json'],
      ['a form', 'query=%7B%20me%20%7B%20tier%20%7D%20%7D', 'application/x-www-form-urlencoded', 'body: Content-Type must be application/json'],
    ])('when the key is good and the body is %s, then 400 INVALID_PARAMETER naming body, counted, with the headers', async (_w, body, type, message) => {
      const key = await srv.key('free');
      const res = await post(body, key, type);
      expect(await refusal(res)).toEqual({ status: 400, errors: [{ message, extensions: { code: 'INVALID_PARAMETER', request_id: res.headers.get('x-request-id') } }] });
      expect(res.headers.get('x-ratelimit-remaining')).toBe('999');
      expect((await srv.rest('/v1/auth/keys', { key })).headers.get('x-ratelimit-remaining')).toBe('998');
    });

    it.each([
      ['a JSON body with no operation', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }, 400],
      ['a repeated URL parameter', { path: '/graphql?query=%7Bme%7Btier%7D%7D&query=x' }, 400],
      ['a method other than GET and POST', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{}' }, 405],
      ['an Accept it cannot serve', { path: '/graphql?query=%7Bme%7Btier%7D%7D', headers: { Accept: 'text/csv' } }, 406],
    ])('when Apollo refuses %s before execution, then the error still carries the request id', async (_w, r: { path?: string } & RequestInit, status) => {
      const res = await srv.rest(r.path ?? '/graphql', { ...r, key: await srv.key('pro') });
      const body = await json(res);
      expect({ status: res.status, ext: body.errors[0].extensions }).toEqual({ status, ext: { code: expect.any(String), request_id: res.headers.get('x-request-id') } });
    });

    it('when a query comes by GET with a key, then it runs (no preflight header needed: the key is not a cookie); without a key, 401', async () => {
      const key = await srv.key('pro');
      const q = `/graphql?query=${encodeURIComponent('{ me { tier } }')}`;
      const ok = await srv.rest(q, { key });
      expect({ status: ok.status, body: await json(ok) }).toEqual({ status: 200, body: { data: { me: { tier: 'pro' } } } });
      expect(ok.headers.get('x-ratelimit-remaining')).toBe('49999');
      expect((await srv.rest(q)).status).toBe(401);
    });
  });

  describe('per-minute quota', () => {
    it('when a free key makes its 11th request in a minute, then 429 with Retry-After = retry_after_secs, shared by REST and GraphQL', async () => {
      const key = await srv.key('free');
      for (let i = 0; i < 5; i++) expect((await srv.rest('/v1/auth/keys', { key })).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await srv.gql(ME, undefined, key)).status).toBe(200);
      const res = await srv.rest('/v1/auth/keys', { key });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('42');
      const body = await json(res);
      expect(body).toEqual({
        error: 'RATE_LIMIT_EXCEEDED',
        message: 'rate limit exceeded: the free plan allows 10 requests per minute; resets in 42 s',
        request_id: res.headers.get('x-request-id'),
        retry_after_secs: 42,
      });
      expect(res.headers.get('x-ratelimit-remaining-minute')).toBe('0');
      // A refused request consumes nothing: the daily count stays at 10.
      expect(res.headers.get('x-ratelimit-remaining')).toBe('990');

      const g = await srv.gql(ME, undefined, key);
      expect(g.status).toBe(429);
      expect(g.headers.get('retry-after')).toBe('42');
      expect((await json(g)).errors[0].extensions).toEqual({
        code: 'RATE_LIMIT_EXCEEDED',
        request_id: g.headers.get('x-request-id'),
        retry_after_secs: 42,
      });

      clock.set(Date.UTC(2026, 2, 10, 12, 31));
      const next = await srv.rest('/v1/auth/keys', { key });
      expect(next.status).toBe(200);
      expect(next.headers.get('x-ratelimit-remaining')).toBe('989');
    });
  });

  describe('daily quota', () => {
    it('when a free key has used 1,000 requests today, then 429 until midnight UTC; at midnight it is served again', async () => {
      const key = await srv.key('free');
      clock.set(Date.UTC(2026, 2, 10, 0, 0, 0));
      for (let minute = 0; minute < 100; minute++) {
        const batch = await Promise.all(Array.from({ length: 10 }, () => srv.rest('/v1/auth/keys', { key })));
        expect(batch.map((r) => r.status)).toEqual(Array(10).fill(200));
        clock.advance(60_000);
      }
      clock.set(Date.UTC(2026, 2, 10, 23, 0, 0));
      const res = await srv.rest('/v1/auth/keys', { key });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('3600');
      expect((await json(res)).message).toBe('rate limit exceeded: the free plan allows 1,000 requests per day; resets in 3600 s');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(res.headers.get('ratelimit')).toBe('"day";r=0;t=3600');

      clock.set(Date.UTC(2026, 2, 11, 0, 0, 1));
      expect((await srv.rest('/v1/auth/keys', { key })).status).toBe(200);
    }, 60_000);
  });

  describe('key management', () => {
    const post = (body: unknown, headers: Record<string, string> = { 'X-Admin-Token': 'admin-secret-token' }) =>
      srv.rest('/v1/auth/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it('when the admin creates a key, then 201 with the key shown once, and the key works', async () => {
      const user = randomUUID();
      const res = await post({ user_id: user, tier: 'pro', label: 'research' });
      expect(res.status).toBe(201);
      const body = await json(res);
      expect(body).toEqual({
        key: expect.stringMatching(/^qp_[A-Za-z0-9_-]{43}$/),
        key_hint: body.key.slice(0, 9) + '…',
        user_id: user,
        tier: 'pro',
        label: 'research',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      });
      expect((await srv.rest('/v1/auth/keys', { key: body.key })).status).toBe(200);
    });

    it.each([
      ['a wrong admin token', 401, 'UNAUTHORIZED', { user_id: randomUUID(), tier: 'pro' }, { 'X-Admin-Token': 'nope' }],
      ['no admin token', 401, 'UNAUTHORIZED', { user_id: randomUUID(), tier: 'pro' }, {}],
      ['an unknown tier', 400, 'INVALID_TIER', { user_id: randomUUID(), tier: 'gold' }, undefined],
      ['a user_id that is not a UUID', 400, 'INVALID_PARAMETER', { user_id: 'bob', tier: 'pro' }, undefined],
      ['no user_id', 400, 'MISSING_PARAMETER', { tier: 'pro' }, undefined],
      ['a label over 100 characters', 400, 'INVALID_PARAMETER', { user_id: randomUUID(), tier: 'pro', label: 'x'.repeat(101) }, undefined],
      ['a body that is not JSON', 400, 'INVALID_PARAMETER', '{"user_id":', undefined],
      ['a JSON array body', 400, 'INVALID_PARAMETER', '[1,2]', undefined],
      ['a body over 16 KB', 400, 'INVALID_PARAMETER', { user_id: randomUUID(), tier: 'pro', pad: 'x'.repeat(17_000) }, undefined],
    ])('when creation gets %s, then %d %s', async (_w, status, code, body, headers) => {
      const res = await post(body, headers as Record<string, string> | undefined);
      expect(res.status).toBe(status);
      expect((await json(res)).error).toBe(code);
    });

    it('when the Content-Type is not JSON, then 400 INVALID_PARAMETER naming the body', async () => {
      const res = await srv.rest('/v1/auth/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', 'X-Admin-Token': 'admin-secret-token' },
        body: 'hello',
      });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error: 'INVALID_PARAMETER', message: expect.stringMatching(/^body: /) });
    });

    it("when a user lists keys, then only that user's keys, oldest first, with key_hash and status", async () => {
      const user = randomUUID();
      const a = await srv.key('free', user);
      clock.advance(1000);
      await srv.key('pro', user);
      await srv.key('pro'); // another user
      const res = await srv.rest('/v1/auth/keys', { key: a });
      const { keys } = await json(res);
      expect(keys).toHaveLength(2);
      expect(keys.map((k: Json) => k.user_id)).toEqual([user, user]);
      expect(keys[0]).toEqual({
        key_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        key_hint: a.slice(0, 9) + '…',
        user_id: user,
        tier: 'free',
        label: null,
        created_at: expect.any(String),
        status: 'active',
        revoked_at: null,
      });
    });

    it("when a key is revoked, then it is refused at once; revoking again returns the same body; another user's hash is KEY_NOT_FOUND", async () => {
      const user = randomUUID();
      const caller = await srv.key('pro', user);
      const victim = await srv.key('pro', user);
      const other = await srv.key('pro');
      const hashOf = async (k: string) => (await json(await srv.rest('/v1/auth/keys', { key: k }))).keys.find((x: Json) => k.startsWith(x.key_hint.slice(0, 9))).key_hash;
      const victimHash = await hashOf(victim);
      const otherHash = await hashOf(other);

      expect((await srv.rest('/v1/auth/keys', { key: victim })).status).toBe(200);
      const del = await srv.rest(`/v1/auth/keys/${victimHash}`, { key: caller, method: 'DELETE' });
      expect(del.status).toBe(200);
      const body = await json(del);
      expect(body).toEqual({ key_hash: victimHash, status: 'revoked', revoked_at: expect.any(String) });
      const again = await srv.rest(`/v1/auth/keys/${victimHash}`, { key: caller, method: 'DELETE' });
      expect(await json(again)).toEqual(body);

      const refused = await srv.rest('/v1/auth/keys', { key: victim });
      expect(refused.status).toBe(401);
      expect((await json(refused)).message).toBe('API key revoked');

      const foreign = await srv.rest(`/v1/auth/keys/${otherHash}`, { key: caller, method: 'DELETE' });
      expect(foreign.status).toBe(404);
      expect((await json(foreign)).error).toBe('KEY_NOT_FOUND');
      expect((await srv.rest('/v1/auth/keys', { key: other })).status).toBe(200);
    });

    it('when GraphQL lists and revokes, then it matches REST', async () => {
      const user = randomUUID();
      const caller = await srv.key('pro', user);
      const victim = await srv.key('free', user);
      const listed = await json(await srv.gql('{ apiKeys { keyHash keyHint tier status } }', undefined, caller));
      expect(listed.data.apiKeys).toHaveLength(2);
      const target = listed.data.apiKeys.find((k: Json) => k.tier === 'free');
      const res = await json(
        await srv.gql('mutation($h: String!) { revokeApiKey(keyHash: $h) { keyHash status revokedAt } }', { h: target.keyHash }, caller),
      );
      expect(res.data.revokeApiKey).toMatchObject({ keyHash: target.keyHash, status: 'revoked' });
      expect((await srv.rest('/v1/auth/keys', { key: victim })).status).toBe(401);
      const missing = await json(await srv.gql('mutation { revokeApiKey(keyHash: "00") { status } }', undefined, caller));
      expect(missing.errors[0].extensions).toMatchObject({ code: 'KEY_NOT_FOUND', request_id: expect.any(String) });
    });
  });

  describe('feature catalogue', () => {
    it('when the catalogue is asked over REST and GraphQL, then both list the same entries', async () => {
      const key = await srv.key('free');
      const rest = await json(await srv.rest('/v1/features/available', { key }));
      const gql = await json(await srv.gql('{ featureCatalogue { name description category } }', undefined, key));
      expect(rest.features).toHaveLength(20);
      expect(rest.features[0]).toEqual({ name: 'rsi_9', description: 'RSI with period 9, Wilder smoothing', category: 'momentum' });
      expect(gql.data.featureCatalogue).toEqual(rest.features);
      expect((await srv.rest('/v1/features/available')).status).toBe(401);
    });
  });

  describe('logs', () => {
    it('when keys and admin tokens are used, then none appears in the logs, and every request line has its request id', async () => {
      const key = await srv.key('pro');
      const res = await srv.rest('/v1/auth/keys', { key });
      await srv.rest('/v1/auth/keys', { method: 'POST', headers: { 'X-Admin-Token': 'admin-secret-token', 'Content-Type': 'application/json' }, body: '{}' });
      await srv.gql(ME, undefined, key);
      const logs = srv.logs();
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(key.slice(3));
      expect(logs).not.toContain('admin-secret-token');
      const id = res.headers.get('x-request-id')!;
      const line = logs.split('\n').find((l) => l.includes(id));
      expect(JSON.parse(line!)).toMatchObject({ request_id: id, path: '/v1/auth/keys', status: 200 });
    });

    it('when /graphql is asked, then its request line logs the full path (not the mounted router\'s "/"), without the query string', async () => {
      const key = await srv.key('pro');
      const post = await srv.gql(ME, undefined, key);
      const get = await srv.rest(`/graphql?query=${encodeURIComponent('{ me { tier } }')}`, { key });
      const lines = srv.logs().split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));
      for (const [res, method] of [[post, 'POST'], [get, 'GET']] as const) {
        expect(lines.find((l) => l.request_id === res.headers.get('x-request-id'))).toMatchObject({ method, path: '/graphql', status: 200 });
      }
    });
  });
});

describe('key creation without ADMIN_TOKEN', () => {
  it('when no admin token is configured, then 400 KEY_CREATION_DISABLED whatever token is sent', async () => {
    const srv = await startTestServer();
    try {
      const res = await srv.rest('/v1/auth/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Admin-Token': 'anything' },
        body: JSON.stringify({ user_id: randomUUID(), tier: 'pro' }),
      });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe('KEY_CREATION_DISABLED');
    } finally {
      await srv.stop();
    }
  });
});

describe('TIER_LIMITS in its documented forms', () => {
  let srv: TestServer;
  const clock = manualClock(Date.UTC(2026, 2, 10, 12, 30, 18));
  beforeAll(async () => {
    // The README's form: null is unlimited for each field but timeframes.
    const limits = { scale: { minuteRequests: null, subscriptions: null }, free: { minuteRequests: 3, dailyRequests: null, historyDays: null } };
    srv = await startTestServer({ clock: clock.now, env: { TIER_LIMITS: JSON.stringify(limits) } });
  });
  afterAll(() => srv?.stop());

  it('when the scale minute quota is null, then the server starts, admits past 500 a minute, and reports no minute window', async () => {
    const key = await srv.key('scale');
    let res!: Response;
    for (let i = 0; i < 520; i++) res = await srv.rest('/v1/features/available', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(res.headers.get('x-ratelimit-limit-minute')).toBeNull();
    expect(res.headers.get('ratelimit-policy')).toBeNull();
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2026, 2, 10, 12, 31) / 1000));
    const me = await srv.gql('{ me { quota { dayLimit minuteLimit minuteRemaining } limits { subscriptions } } }', undefined, key);
    expect((await json(me)).data.me).toEqual({ quota: { dayLimit: null, minuteLimit: null, minuteRemaining: null }, limits: { subscriptions: null } });
  });

  it('when a free key has an unlimited day but 3 a minute, then the fourth request is 429 on the minute', async () => {
    const key = await srv.key('free');
    for (let i = 0; i < 3; i++) expect((await srv.rest('/v1/features/available', { key })).status).toBe(200);
    const res = await srv.rest('/v1/features/available', { key });
    expect(res.status).toBe(429);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    expect((await json(res)).message).toMatch(/3 requests per minute/);
  });
});
