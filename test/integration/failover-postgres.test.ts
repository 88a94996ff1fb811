/**
 * A PostgreSQL failover on a real pg_auto_failover formation (monitor + two nodes, private, on
 * spare ports): gateways under request loops see only 200/201 or 503 while the primary's node is
 * lost, come back within 15 s of the promotion and lose no acknowledged write; ingesters elect one
 * leader again after a kill -9 and after a failover, and repair leaves no gap and no duplicate.
 */
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { LOCK_KEYS } from '../../src/db/locks.repository';
import { lastClosedOpen } from '../../src/domain/timeframe';
import { startFormation, type Formation, type FormationNode } from '../helpers/pg-auto-failover';
import { privateRedis, spawnMds, startGateway, type GatewayProcess, type MdsProcess, type PrivateRedis } from '../helpers/processes';
import { describeWith } from '../helpers/requirements';
import { requestLoop } from '../helpers/request-loop';
import { pause, pollUntil } from '../helpers/wait';
import { VenueSimulator } from '../../tools/venue-sim';

const MIN = 60_000;
const HOUR = 3_600_000;
/** The exchanges ingested by default (all in the catalogue), in the order `stored` lists them. */
const CANDLES = ['binance-perp', 'perp', 'spot'];
const ADMIN = 'failover-admin-token';

describeWith(['POSTGRES_BIN', 'PG_AUTOCTL'], 'a PostgreSQL failover on pg_auto_failover', (pgBin, autoctl) => {
  let formation: Formation;
  let redis: PrivateRedis;
  let sim: VenueSimulator;

  beforeAll(async () => {
    [formation, redis, sim] = await Promise.all([startFormation(autoctl, pgBin), privateRedis(), VenueSimulator.start()]);
    await redis.start();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([formation?.destroy(), redis?.stop(), sim?.close()]);
  });

  /** One statement on the node that is primary now. */
  const onPrimary = async <R extends object>(text: string): Promise<R[]> => {
    const node = await formation.primary();
    if (!node) throw new Error('no primary');
    const c = new pg.Client({ connectionString: node.url, connectionTimeoutMillis: 3_000 });
    await c.connect();
    try {
      return (await c.query(text)).rows as R[];
    } finally {
      await c.end();
    }
  };

  /** The primary's node lost (its keeper's process group killed), and when the other one took writes. */
  const failover = async (): Promise<{ lost: FormationNode; killedAt: number; promotedAt: number }> => {
    const lost = (await formation.primary())!;
    const standby = formation.nodes.find((n) => n !== lost)!;
    const killedAt = await formation.kill(lost);
    return { lost, killedAt, promotedAt: await formation.promoted(standby) };
  };

  it('when the primary node is lost under two gateways, then only 200/201 or 503 (none over 10 s), every loop is back within 15 s of the promotion, and every acknowledged key is there', async () => {
    const env = { DATABASE_URL: formation.url, REDIS_URL: redis.url, ADMIN_TOKEN: ADMIN, DATABASE_CONNECT_TIMEOUT: '1s', TIER_LIMITS: JSON.stringify({ pro: { dailyRequests: null, minuteRequests: null } }) };
    const gateways: GatewayProcess[] = [await startGateway(env)];
    gateways.push(await startGateway(env));
    const acknowledged: string[] = [];
    const newKey = (g: GatewayProcess, signal?: AbortSignal) =>
      fetch(`${g.url}/v1/auth/keys`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Admin-Token': ADMIN },
        body: JSON.stringify({ user_id: randomUUID(), tier: 'pro' }),
        signal,
      });
    try {
      const { key } = (await (await newKey(gateways[0])).json()) as { key: string };
      // A write acknowledged (201) is remembered by its key's hash, to be looked for after.
      const write = (g: GatewayProcess) => async (signal: AbortSignal) => {
        const res = await newKey(g, signal);
        const body = await res.text();
        if (res.status === 201) acknowledged.push(createHash('sha256').update((JSON.parse(body) as { key: string }).key).digest('hex'));
        return new Response(body, { status: res.status });
      };
      const read = (g: GatewayProcess) => (signal: AbortSignal) =>
        fetch(`${g.url}/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=2026-01-01`, { headers: { 'X-API-Key': key }, signal });
      const loops = gateways.flatMap((g, i) => [
        { name: `read ${i}`, loop: requestLoop(read(g), { workers: 1, timeoutMs: 12_000 }) },
        { name: `write ${i}`, loop: requestLoop(write(g), { workers: 1, timeoutMs: 12_000 }) },
      ]);
      await pause(2_000);
      const { lost, killedAt, promotedAt } = await failover();
      await pause(promotedAt + 20_000 - Date.now());
      const stopped = await Promise.all(loops.map(async ({ name, loop }) => ({ name, samples: await loop.stop() })));
      const samples = stopped.flatMap(({ name, samples }) => samples.map((s) => ({ loop: name, ...s })));

      expect(samples.filter((s) => ![200, 201, 503].includes(s.status) || s.end - s.start > 10_000)).toEqual([]);
      for (const { name } of loops) {
        const late = samples.filter((s) => s.loop === name && s.start >= promotedAt + 15_000);
        expect({ name, answered: late.length > 0, refused: late.filter((s) => s.status !== 200 && s.status !== 201).length }).toEqual({ name, answered: true, refused: 0 });
      }
      // The loss showed: 503s after the kill.
      expect(samples.some((s) => s.status === 503 && s.end >= killedAt)).toBe(true);
      const stored = new Set((await onPrimary<{ key_hash: string }>('SELECT key_hash FROM api_keys')).map((r) => r.key_hash));
      expect(acknowledged.length).toBeGreaterThan(10);
      expect(acknowledged.filter((h) => !stored.has(h))).toEqual([]);
      await formation.restart(lost);
    } finally {
      await Promise.all(gateways.map((g) => g.stop()));
    }
  }, 150_000);

  it('when the ingest leader is killed, and later the primary node is lost while following, then one instance leads again within 15 s each time, and after repair no gap and no duplicate', async () => {
    const env = { ...sim.env, DATABASE_URL: formation.url, INGEST_SYMBOLS: 'BTC-USDT', INGEST_SINCE: '30m', INGEST_REPAIR_INTERVAL: '5s', DATABASE_CONNECT_TIMEOUT: '1s', LOG_LEVEL: 'info' };
    const leads = (p: MdsProcess) => (p.output().match(/"msg":"ingest: leader/g) ?? []).length;
    /** 1m candles and funding rates per exchange: rows, distinct times, first and last. */
    const stored = async () => {
      const rows = await onPrimary<{ what: string; n: number; d: number; lo: string; hi: string }>(
        `SELECT s.exchange AS what, count(*)::int AS n, count(DISTINCT c.time)::int AS d, (extract(epoch FROM min(c.time)) * 1000)::bigint::text AS lo, (extract(epoch FROM max(c.time)) * 1000)::bigint::text AS hi
           FROM candles c JOIN series s ON s.id = c.series_id WHERE c.timeframe = '1m' GROUP BY s.exchange
         UNION ALL
         SELECT 'funding ' || s.exchange, count(*)::int, count(DISTINCT f.time)::int, (extract(epoch FROM min(f.time)) * 1000)::bigint::text, (extract(epoch FROM max(f.time)) * 1000)::bigint::text
           FROM funding_rates f JOIN series s ON s.id = f.series_id GROUP BY s.exchange
         ORDER BY 1`,
      ).catch(() => []);
      return rows.map((r) => ({ what: r.what, rows: r.n, distinct: r.d, first: Number(r.lo), last: Number(r.hi) }));
    };
    const caughtUp = (minute: number) => async () => pollUntil(stored, (s) => s.filter((x) => CANDLES.includes(x.what) && x.last >= minute).length === CANDLES.length, { withinMs: 30_000 });
    const ingesters = [spawnMds(['ingest'], env), spawnMds(['ingest'], env)];
    try {
      await pollUntil(async () => ingesters.map(leads), (n) => n[0] + n[1] === 1, { withinMs: 60_000 });
      const leader = ingesters.find((p) => leads(p) === 1)!;
      const standby = ingesters.find((p) => p !== leader)!;
      await caughtUp(lastClosedOpen(Date.now(), '1m') - MIN)();

      // kill -9 of the leader: the standby leads within 15 s; a third process stands by.
      leader.kill('SIGKILL');
      const killedAt = Date.now();
      await leader.exited();
      await standby.printed(/"msg":"ingest: leader/, 15_000);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      const third = spawnMds(['ingest'], env);
      ingesters.push(third);
      await third.printed(/"msg":"ingest: standby/, 30_000);

      // The primary lost while following: within 15 s of the promotion the new primary knows one
      // holder of the ingest lock, and never two.
      const { promotedAt } = await failover();
      const holders = () => onPrimary<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = ${LOCK_KEYS.ingestLeader} AND granted`).then((r) => r[0].n);
      expect(await pollUntil(holders, (n) => n === 1, { withinMs: promotedAt + 15_000 - Date.now(), everyMs: 100 })).toBe(1);
      const later: number[] = [];
      for (let i = 0; i < 5; i++, await pause(1_000)) later.push(await holders());
      expect(later).toEqual([1, 1, 1, 1, 1]);
      expect([standby, third].map(leads).reduce((a, b) => a + b)).toBeGreaterThan(0);

      // Repaired: every minute from the first to the last closed one on every exchange once;
      // Hyperliquid's funding hours likewise; Binance USD-M's settlements (8-hourly) once each.
      await caughtUp(lastClosedOpen(Date.now(), '1m'))();
      await pause(6_000); // one repair round past the follow
      const after = await stored();
      expect(after.filter((s) => CANDLES.includes(s.what) && s.rows > 0).map((s) => s.what)).toEqual(CANDLES);
      for (const s of after.filter((x) => x.rows > 0)) {
        const step = s.what === 'funding perp' ? HOUR : MIN;
        if (s.what === 'funding binance-perp') expect(s.rows).toBe(s.distinct);
        else expect(s).toEqual({ ...s, rows: s.distinct, distinct: (s.last - s.first) / step + 1 });
      }
    } finally {
      for (const p of ingesters) p.kill('SIGKILL');
    }
  }, 180_000);
});
