/**
 * Redis failover through Sentinel, on a private master, replica and three sentinels: the server
 * (REDIS_SENTINELS) under a request loop while the master is killed, or failed over by hand.
 * Callers see only 200, 503 or 429, never a hang; they are served again soon after the promotion,
 * quotas count on the new master, and the outage is logged once. A proxy before the first sentinel
 * times an announcement of the switch into the gateway's reconnect. Needs `redis-server` on PATH.
 */
import { hashKey } from '../../src/domain/api-keys';
import type { RedisQuotaStore } from '../../src/services/quota/redis.quota-store';
import { startSentinelCluster, type NodeAddress, type Promotion, type SentinelCluster } from '../helpers/redis-sentinel';
import { failoverFigures, requestLoop, type FailoverFigures } from '../helpers/request-loop';
import { describeWith } from '../helpers/requirements';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { pollUntil, shiftableClock } from '../helpers/wait';

const QUOTA_PREFIX = 'mds:failover:';

describeWith('REDIS_SERVER', 'Redis failover through Sentinel', () => {
  let cluster: SentinelCluster;
  let srv: TestServer;
  let proxy: TcpProxy;
  const clock = shiftableClock();

  beforeAll(async () => {
    cluster = await startSentinelCluster();
    const [host, port] = cluster.sentinels.split(',')[0].split(':');
    proxy = await startTcpProxy(host, Number(port));
    srv = await startTestServer({
      clock: clock.now,
      quotaPrefix: QUOTA_PREFIX,
      // The loop's key is never refused, so a 503 is the failover's and a 200 its end.
      env: { REDIS_SENTINELS: `127.0.0.1:${proxy.port},${cluster.sentinels}`, TIER_LIMITS: '{"scale":{"minuteRequests":null}}' },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    await proxy?.close();
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

  it('when the sentinels announce a switch while the gateway is asking them for the master, then it connects again, serves and hears live events', async () => {
    await cluster.restore();
    const key = await srv.key('scale');
    expect((await srv.rest('/v1/auth/keys', { key })).status).toBe(200);
    const quota = (srv.services.quotaStore as RedisQuotaStore).redis;
    const master = await cluster.master();
    const watching = (sent: string) => sent.includes('+switch-master'); // a failover detector's subscription
    expect(proxy.openConnections(watching)).toBeGreaterThan(0);

    const silence = cluster.silenceSentinels();
    try {
      // Every gateway connection to the master is dropped: each reconnect asks a silent sentinel.
      const admin = cluster.client(master);
      try {
        const me = Number(await admin.client('ID'));
        // The gateway's connections are the unnamed ones (sentinels name theirs, replicas are type replica).
        const unnamed = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'normal')).split('\n').filter((l) => / name= /.test(l));
        const ids = unnamed.map((l) => Number(/\bid=(\d+)/.exec(l)![1])).filter((id) => id !== me);
        expect(ids.length).toBeGreaterThan(0);
        for (const id of ids) await admin.client('KILL', 'ID', String(id));
      } finally {
        admin.disconnect();
      }
      expect(await pollUntil(async () => quota.status, (s) => s === 'connecting', { withinMs: 5_000, everyMs: 5 })).toBe('connecting');
      // The sentinels' announcement, as RESP3 pushes it, reaches every failover detector mid-question.
      const text = `${cluster.masterName} ${master.host} ${master.port} ${master.host} ${master.port}`;
      const push = `>3\r\n$7\r\nmessage\r\n$14\r\n+switch-master\r\n$${text.length}\r\n${text}\r\n`;
      expect(proxy.sendToClients(push, watching)).toBeGreaterThan(0);
      // Each detector that heard it closes its sentinel connections.
      expect(await pollUntil(async () => proxy.openConnections(watching), (n) => n === 0, { withinMs: 5_000, everyMs: 5 })).toBe(0);
    } finally {
      silence.resume();
    }
    const status = await pollUntil(async () => (await srv.rest('/v1/auth/keys', { key })).status, (s) => s === 200, { withinMs: 10_000 });
    expect(status).toBe(200);

    // The event bus's subscriber is back on its channel too: live subscriptions hear the next event.
    const heard: string[] = [];
    const unlisten = srv.services.events.bus.listen((e) => heard.push(e.symbol));
    const admin = cluster.client(master);
    try {
      const event = JSON.stringify({ type: 'candle', exchange: 'hyperliquid', symbol: 'RACE', timeframe: '1m', candles: [] });
      const delivered = await pollUntil(async () => (await admin.publish(`${QUOTA_PREFIX}events`, event), heard.length), (n) => n > 0, { withinMs: 10_000, everyMs: 200 });
      expect(delivered).toBeGreaterThan(0);
      expect(heard[0]).toBe('RACE');
    } finally {
      unlisten();
      admin.disconnect();
    }
  }, 60_000);
});
