/**
 * Quotas and keys across gateway processes sharing one Redis and one PostgreSQL, and the
 * service's behaviour while Redis is down. Needs REDIS_URL and DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { openServices, type Services } from '../../src/composition';
import { createFieldLimiter } from '../../src/graphql/field-rate-limit';
import type { GqlContext } from '../../src/graphql/context';
import { RedisQuotaStore } from '../../src/services/quota/redis.quota-store';
import { RedisClients } from '../../src/services/runtime/redis-clients';
import { testConfig } from '../helpers/config';
import { privateRedis, startGateway, type GatewayProcess } from '../helpers/processes';
import { startTestServer } from '../helpers/server';
import { describeWith } from '../helpers/requirements';
import { freshPostgres } from '../helpers/databases';
import { pollUntil } from '../helpers/wait';
import type { ResolverData } from 'type-graphql';
import type { Json } from '../helpers/json';

/** Poll `request` every 100 ms until it answers 200 or `ms` pass; returns the last status. */
const statusWithin = (ms: number, request: () => Promise<Response>) => pollUntil(async () => (await request()).status, (s) => s === 200, { withinMs: ms });

describeWith(['REDIS_URL', 'DATABASE_URL'], 'Redis as the shared quota store', (redisUrl, pgUrl) => {
  describe('two gateway processes sharing Redis and PostgreSQL', () => {
    let db: { url: string; drop(): Promise<void> };
    let services: Services;
    let a: GatewayProcess;
    let b: GatewayProcess;

    beforeAll(async () => {
      db = await freshPostgres(pgUrl);
      services = await openServices(testConfig({ DATABASE_URL: db.url }));
      const env = { DATABASE_URL: db.url, REDIS_URL: redisUrl };
      [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await services?.close();
      await db?.drop();
    });

    it('when 300 concurrent requests on one free key hit both processes, then exactly 10 are admitted', async () => {
      const { key } = await services.keys.create({ userId: randomUUID(), tier: 'free', label: null });
      const statuses = await Promise.all(
        Array.from({ length: 300 }, (_, i) => fetch(`${i % 2 ? a.url : b.url}/v1/auth/keys`, { headers: { 'X-API-Key': key } }).then((r) => r.status)),
      );
      const admitted = statuses.filter((s) => s === 200).length;
      const limited = statuses.filter((s) => s === 429).length;
      // The minute may roll over mid-burst: then the next minute admits its own 10.
      expect([10, 20]).toContain(admitted);
      expect(admitted + limited).toBe(300);
    });

    it('when a key is revoked on one process, then the other refuses it within 1 s', async () => {
      const user = randomUUID();
      const caller = (await services.keys.create({ userId: user, tier: 'pro', label: null })).key;
      const victim = (await services.keys.create({ userId: user, tier: 'pro', label: null })).key;
      expect((await fetch(`${b.url}/v1/auth/keys`, { headers: { 'X-API-Key': victim } })).status).toBe(200); // cached on B
      const list = (await (await fetch(`${a.url}/v1/auth/keys`, { headers: { 'X-API-Key': caller } })).json()) as Json;
      const hash = list.keys.find((k: Json) => victim.startsWith(k.key_hint.slice(0, 9))).key_hash;
      const del = await fetch(`${a.url}/v1/auth/keys/${hash}`, { method: 'DELETE', headers: { 'X-API-Key': caller } });
      expect(del.status).toBe(200);
      const revokedAt = Date.now();
      const status = await pollUntil(async () => (await fetch(`${b.url}/v1/auth/keys`, { headers: { 'X-API-Key': victim } })).status, (s) => s !== 200, {
        withinMs: 3_000,
        everyMs: 25,
      });
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThanOrEqual(1000);
    });
  });

  describe('field rate limits on the Redis store', () => {
    it('when 50 concurrent calls race for a field limited to 5, then exactly 5 pass and the rest carry retry_after_secs', async () => {
      const store = new RedisQuotaStore({ clients: new RedisClients(testConfig({ REDIS_URL: redisUrl }).redis!), prefix: `mds:test:${randomUUID()}:` });
      try {
        const limit = createFieldLimiter(store);
        const data = {
          args: {},
          root: undefined,
          info: { fieldName: 'multiAsset' },
          context: { principal: { keyHash: randomUUID() } },
        } as unknown as ResolverData<GqlContext>;
        const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => limit({ max: 5, windowMs: 3_600_000 }, data)));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
        const reasons = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason);
        expect(reasons).toHaveLength(45);
        expect(reasons[0]).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', extras: { retry_after_secs: expect.any(Number) } });
      } finally {
        await store.close();
      }
    });
  });

  describe('Redis down', () => {
    it('when Redis stops, then requests get 503 and /health 503; when it is back, service resumes without restart', async () => {
      const redis = await privateRedis();
      await redis.start();
      const srv = await startTestServer({ env: { REDIS_URL: redis.url } });
      try {
        const key = await srv.key('pro');
        expect((await srv.rest('/v1/auth/keys', { key })).status).toBe(200);

        await redis.stop();
        const started = Date.now();
        const down = await srv.rest('/v1/auth/keys', { key });
        expect(down.status).toBe(503);
        expect(Date.now() - started).toBeLessThan(3000);
        expect(((await down.json()) as Json).error).toBe('SERVICE_UNAVAILABLE');
        const g = await srv.gql('{ me { tier } }', undefined, key);
        expect(g.status).toBe(503);
        expect(((await g.json()) as Json).errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
        const health = await srv.rest('/health');
        expect(health.status).toBe(503);
        expect(((await health.json()) as Json).checks.rate_limit_store.status).toBe('unavailable');

        await redis.start();
        expect(await statusWithin(10_000, () => srv.rest('/v1/auth/keys', { key }))).toBe(200);
        expect((await srv.rest('/health')).status).toBe(200);
        // Logged once when it went, once when it came back: not per reconnect attempt or per client.
        const outage = () => srv.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Json).filter((l) => l.dependency === 'redis');
        await pollUntil(async () => outage().length, (n) => n >= 2, { withinMs: 5_000 });
        expect(outage().map((l) => l.msg)).toEqual(['dependency unreachable', 'dependency reachable again']);
        expect(outage()[1].failures).toBeGreaterThan(0);
      } finally {
        await srv.stop();
        await redis.stop();
      }
    }, 60_000);

    it('when Redis is unreachable, then closing the services returns (nothing waits for Redis)', async () => {
      const redis = await privateRedis(); // never started
      const services = await openServices(testConfig({ REDIS_URL: redis.url }), { dataDir: 'memory' });
      services.events.bus.listen(() => undefined); // a subscriber with its SUBSCRIBE queued
      await expect(services.quotaStore.ping()).rejects.toThrow();
      await services.close();
    }, 15_000);

    it('when Redis is unreachable at start, then the server starts, answers 503, and recovers when Redis appears', async () => {
      const redis = await privateRedis();
      const srv = await startTestServer({ env: { REDIS_URL: redis.url } });
      try {
        const key = await srv.key('free');
        expect((await srv.rest('/v1/auth/keys', { key })).status).toBe(503);
        expect((await srv.rest('/health')).status).toBe(503);
        await redis.start();
        expect(await statusWithin(10_000, () => srv.rest('/v1/auth/keys', { key }))).toBe(200);
      } finally {
        await srv.stop();
        await redis.stop();
      }
    }, 60_000);
  });
});
