/**
 * Failover benchmark: a PostgreSQL failover (pg_auto_failover, the primary's node SIGKILLed) and
 * a Redis failover (Sentinel, the master SIGKILLed) under steady load on two gateways, and a
 * SIGTERM under load; per run: seconds of 503 from the kill and from the promotion, requests
 * failed otherwise (goal 0), p99 latency in the minute after, shutdown time.
 *   npm run bench:failover -- [--runs 3] [--after 60] [--connections 8]   (options: bench/README.md)
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startFormation } from '../test/helpers/pg-auto-failover';
import { runMds, startGateway, type GatewayProcess } from '../test/helpers/processes';
import { csvFile } from '../test/helpers/csv';
import { startSentinelCluster } from '../test/helpers/redis-sentinel';
import { requestLoop, type RequestLoop, type Sample } from '../test/helpers/request-loop';
import { pause } from '../test/helpers/wait';
import { benchDatabase } from './bench-support';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    after: { type: 'string', default: '60' },
    connections: { type: 'string', default: '8' },
    'pg-bin': { type: 'string', default: '/usr/lib/postgresql/15/bin' },
    autoctl: { type: 'string', default: '/usr/bin/pg_autoctl' },
    only: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const AFTER_MS = Number(values.after) * 1000;
const CONNECTIONS = Number(values.connections);
const ADMIN = 'bench-admin-token';
const T0 = Date.UTC(2026, 0, 1);
const ROWS = 10_000;

/** `CONNECTIONS` request loops over the gateways, each request a 100-row page somewhere in the history. */
function load(gateways: GatewayProcess[], key: string): RequestLoop[] {
  let n = 0;
  return Array.from({ length: CONNECTIONS }, (_, i) =>
    requestLoop(
      (signal) => {
        const from = T0 + ((i * 997 + n++) % (ROWS - 100)) * 60_000;
        return fetch(`${gateways[i % gateways.length].url}/v1/ohlcv?symbol=BTC-USDT&exchange=spot&timeframe=1m&start=${from}&limit=100`, { headers: { 'X-API-Key': key }, signal });
      },
      { workers: 1, gapMs: 0, timeoutMs: 15_000 },
    ),
  );
}

const stopAll = async (loops: RequestLoop[]) => (await Promise.all(loops.map((l) => l.stop()))).flat();
const p99 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] : null);

/** What a failover cost the clients: 503 seconds from the kill and from the promotion, other failures, p99 after. */
function summarize(samples: Sample[], killedAt: number, promotedAt: number) {
  const refused = samples.filter((o) => o.status === 503 && o.end >= killedAt);
  const lastRefused = refused.length ? Math.max(...refused.map((o) => o.end)) : killedAt;
  const after = samples.filter((o) => o.start >= promotedAt && o.start < promotedAt + AFTER_MS && o.status === 200);
  return {
    promotion_s: (promotedAt - killedAt) / 1000,
    unavailable_from_kill_s: (lastRefused - killedAt) / 1000,
    unavailable_from_promotion_s: Math.max(0, lastRefused - promotedAt) / 1000,
    refused_503: refused.length,
    failed_otherwise: samples.filter((o) => o.status !== 200 && o.status !== 503).length,
    requests: samples.length,
    p99_after_ms: p99(after.map((o) => o.end - o.start)),
  };
}

async function newKey(g: GatewayProcess): Promise<string> {
  const res = await fetch(`${g.url}/v1/auth/keys`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Admin-Token': ADMIN }, body: JSON.stringify({ user_id: randomUUID(), tier: 'scale' }) });
  return ((await res.json()) as { key: string }).key;
}

const CANDLES = csvFile(['time,open,high,low,close,volume', ...Array.from({ length: ROWS }, (_, i) => `${T0 + i * 60_000},100,101,99,100.5,${i + 1}`)]);
const GATEWAY_ENV = { ADMIN_TOKEN: ADMIN, DATABASE_CONNECT_TIMEOUT: '1s', TIER_LIMITS: JSON.stringify({ scale: { minuteRequests: null } }) };

async function postgresRun() {
  const formation = await startFormation(values.autoctl!, values['pg-bin']!);
  try {
    const imported = await runMds(['import', 'candles', '--exchange', 'spot', '--symbol', 'BTC-USDT', '--timeframe', '1m', '--file', CANDLES], { DATABASE_URL: formation.url });
    if (imported.code !== 0) throw new Error(imported.stderr);
    const env = { ...GATEWAY_ENV, DATABASE_URL: formation.url };
    const gateways = [await startGateway(env), await startGateway(env)];
    try {
      const key = await newKey(gateways[0]);
      const loops = load(gateways, key);
      await pause(3_000);
      const lost = (await formation.primary())!;
      const killedAt = await formation.kill(lost);
      const promotedAt = await formation.promoted(formation.nodes.find((n) => n !== lost)!);
      await pause(promotedAt + AFTER_MS - Date.now());
      return summarize(await stopAll(loops), killedAt, promotedAt);
    } finally {
      await Promise.all(gateways.map((g) => g.stop()));
    }
  } finally {
    await formation.destroy();
  }
}

/** SIGTERM to one gateway under load: how long until it exits, and requests it had accepted that failed. */
async function shutdownRun(databaseUrl: string) {
  const g = await startGateway({ ...GATEWAY_ENV, DATABASE_URL: databaseUrl });
  const key = await newKey(g);
  const loops = load([g], key);
  await pause(3_000);
  const signalledAt = Date.now();
  g.kill('SIGTERM');
  const code = await g.exited();
  const exitMs = Date.now() - signalledAt;
  // Requests begun before the signal were accepted: each must have completed.
  const accepted = (await stopAll(loops)).filter((o) => o.start < signalledAt);
  return { exit_ms: exitMs, exit_code: code, accepted: accepted.length, accepted_failed: accepted.filter((o) => o.status !== 200).length };
}

/** The Redis master SIGKILLed under load: its sentinels promote the replica. */
async function redisRun(databaseUrl: string) {
  const cluster = await startSentinelCluster();
  try {
    const env = { ...GATEWAY_ENV, DATABASE_URL: databaseUrl, REDIS_SENTINELS: cluster.sentinels };
    const gateways = [await startGateway(env), await startGateway(env)];
    try {
      const key = await newKey(gateways[0]);
      const loops = load(gateways, key);
      await pause(3_000);
      const { killedAt, promoted } = await cluster.killMaster();
      const promotedAt = (await promoted).at;
      await pause(promotedAt + AFTER_MS - Date.now());
      return summarize(await stopAll(loops), killedAt, promotedAt);
    } finally {
      await Promise.all(gateways.map((g) => g.stop()));
    }
  } finally {
    await cluster.stop();
  }
}

/** Each kind of run in turn, `RUNS` times; every run on fresh servers. */
async function main(): Promise<void> {
  const results: Record<string, unknown[]> = { postgres: [], redis: [], shutdown: [] };
  const withData = async <T>(fn: (url: string) => Promise<T>): Promise<T> => {
    const db = await benchDatabase();
    try {
      const imported = await runMds(['import', 'candles', '--exchange', 'spot', '--symbol', 'BTC-USDT', '--timeframe', '1m', '--file', CANDLES], { DATABASE_URL: db.url });
      if (imported.code !== 0) throw new Error(imported.stderr);
      return await fn(db.url);
    } finally {
      await db.drop();
    }
  };
  const kinds: Record<string, () => Promise<unknown>> = { postgres: postgresRun, redis: () => withData(redisRun), shutdown: () => withData(shutdownRun) };
  for (let run = 1; run <= RUNS; run++) {
    for (const [kind, measure] of Object.entries(kinds)) {
      if (values.only && values.only !== kind) continue;
      const r = await measure();
      results[kind].push(r);
      console.log(JSON.stringify({ run, [kind]: r }));
    }
  }
  console.log(JSON.stringify({ summary: results }, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
