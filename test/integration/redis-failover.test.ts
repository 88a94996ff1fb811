/**
 * Redis failover through Sentinel, on a private master, replica and three sentinels: the server
 * (REDIS_SENTINELS) under a request loop while the master is killed, or failed over by hand.
 * Callers see only 200, 503 or 429, never a hang; they are served again soon after the promotion,
 * quotas count on the new master, and the outage is logged once. Needs `redis-server` on PATH.
 */
import { hashKey } from '../../src/domain/api-keys';
import { startSentinelCluster, type NodeAddress, type Promotion, type SentinelCluster } from '../helpers/redis-sentinel';
import { failoverFigures, requestLoop, type FailoverFigures } from '../helpers/request-loop';
import { describeWith } from '../helpers/requirements';
import { startTestServer, type TestServer } from '../helpers/server';
import { pollUntil, shiftableClock } from '../helpers/wait';

const QUOTA_PREFIX = 'mds:failover:';

describeWith('REDIS_SERVER', 'Redis failover through Sentinel', () => {
  let cluster: SentinelCluster;
  let srv: TestServer;
  const clock = shiftableClock();

  beforeAll(async () => {
    cluster = await startSentinelCluster();
    srv = await startTestServer({
      clock: clock.now,
      quotaPrefix: QUOTA_PREFIX,
      // The loop's key is never refused, so a 503 is the failover's and a 200 its end.
      env: { REDIS_SENTINELS: cluster.sentinels, TIER_LIMITS: '{"scale":{"minuteRequests":null}}' },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    await cluster?.stop();
  });

  /** A request loop on a scale key across `fault`, until it has been served again for a while. */
  async function acrossFailover(fault: () => Promise<{ promoted: Promise<Promotion> }>): Promise<{ figures: FailoverFigures; promotion: Promotion }> {
    const key = await srv.key('scale');
    const loop = requestLoop((signal) => srv.rest('/v1/auth/keys', { key, signal }));
    try {
      await pollUntil(async () => loop.samples.filter((s) => s.status === 200).length, (n) => n >= 20, { withinMs: 10_000 });
      const promotion = await (await fault()).promoted;
      const served = await pollUntil(async () => loop.samples.find((s) => s.start > promotion.at && s.status === 200), (s) => s !== undefined, { withinMs: 15_000 });
      if (served) await pollUntil(async () => loop.samples.filter((s) => s.start > served.end + 2_000).length, (n) => n >= 4, { withinMs: 10_000 });
      return { figures: failoverFigures(await loop.stop()), promotion };
    } finally {
      await loop.stop();
    }
  }

  /** At the start of a fresh minute, a new free key's 11th request is refused, and the counters are on `master`. */
  async function expectQuotaCountedOn(master: NodeAddress): Promise<void> {
    clock.shift(60_000, 0);
    const free = await srv.key('free');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await srv.rest('/v1/auth/keys', { key: free })).status);
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
    const redis = cluster.client(master);
    try {
      const counters = await redis.keys(`${QUOTA_PREFIX}{${hashKey(free)}}:*`);
      expect(counters).toHaveLength(2); // the day and the minute
      expect(await redis.mget(counters)).toEqual(['10', '10']);
    } finally {
      redis.disconnect();
    }
  }

  it('when the master is killed under load, then callers see 200, 503 or 429 only, are served within 10 s of the promotion, and quotas count on the new master', async () => {
    const { figures, promotion } = await acrossFailover(() => cluster.killMaster());
    expect(Object.keys(figures.statuses).map(Number).filter((s) => ![200, 503, 429].includes(s))).toEqual([]);
    expect(figures.statuses[503]).toBeGreaterThan(0); // the loop did cross the outage
    expect(figures.maxMs).toBeLessThan(10_000);
    expect(figures.servedAgainAt).not.toBeNull();
    expect(figures.servedAgainAt! - promotion.at).toBeLessThanOrEqual(10_000);
    await expectQuotaCountedOn(promotion.master);

    // The outage in the log: once when it began, once when it ended, nothing per reconnect attempt.
    const lines = () => srv.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; dependency?: string; failures?: number });
    await pollUntil(async () => lines().some((l) => l.msg === 'dependency reachable again'), (ok) => ok, { withinMs: 5_000 });
    const redisLines = lines().filter((l) => l.dependency === 'redis');
    expect(redisLines.map((l) => l.msg)).toEqual(['dependency unreachable', 'dependency reachable again']);
    expect(redisLines[1].failures).toBeGreaterThan(0);
    expect(lines().filter((l) => /event bus/.test(l.msg))).toEqual([]);
  }, 60_000);

  it('when an operator fails the master over by hand, then callers see 200, 503 or 429 only and quotas count on the promoted node', async () => {
    await cluster.restore(); // a replica again, if a kill took it
    const before = await cluster.master();
    const { figures, promotion } = await acrossFailover(() => cluster.failover());
    expect(promotion.master).not.toEqual(before);
    expect(Object.keys(figures.statuses).map(Number).filter((s) => ![200, 503, 429].includes(s))).toEqual([]);
    expect(figures.maxMs).toBeLessThan(10_000);
    expect(figures.servedAgainAt! - promotion.at).toBeLessThanOrEqual(10_000);
    await expectQuotaCountedOn(promotion.master);
  }, 60_000);
});
