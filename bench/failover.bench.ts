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

interface Outcome {
  start: number;
  end: number;
  status: number;
}

/** `connections` loops over the gateways, each request a 100-row page, until `stop()`. */
async function load(gateways: GatewayProcess[], key: string, stop: () => boolean): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const loop = async (g: GatewayProcess, i: number) => {
    while (!stop()) {
      const start = Date.now();
      const from = T0 + ((i * 997 + out.length) % (ROWS - 100)) * 60_000;
      const status = await fetch(`${g.url}/v1/ohlcv?symbol=BTC-USDT&exchange=spot&timeframe=1m&start=${from}&limit=100`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(15_000) })
        .then(async (r) => (await r.arrayBuffer(), r.status))
        .catch(() => 0);
      out.push({ start, end: Date.now(), status });
      if (status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => loop(gateways[i % gateways.length], i)));
  return out;
}

const p99 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] : null);

/** What a failover cost the clients: 503 seconds from the kill and from the promotion, other failures, p99 after. */
function summarize(outcomes: Outcome[], killedAt: number, promotedAt: number) {
  const refused = outcomes.filter((o) => o.status === 503 && o.end >= killedAt);
  const lastRefused = refused.length ? Math.max(...refused.map((o) => o.end)) : killedAt;
  const after = outcomes.filter((o) => o.start >= promotedAt && o.start < promotedAt + AFTER_MS && o.status === 200);
  return {
    promotion_s: (promotedAt - killedAt) / 1000,
    unavailable_from_kill_s: (lastRefused - killedAt) / 1000,
    unavailable_from_promotion_s: Math.max(0, lastRefused - promotedAt) / 1000,
    refused_503: refused.length,
    failed_otherwise: outcomes.filter((o) => o.status !== 200 && o.status !== 503).length,
    requests: outcomes.length,
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
      let stopAt = Infinity;
      const running = load(gateways, key, () => Date.now() >= stopAt);
      await new Promise((r) => setTimeout(r, 3_000));
      const lost = (await formation.primary())!;
      const killedAt = await formation.kill(lost);
      const promotedAt = await formation.promoted(formation.nodes.find((n) => n !== lost)!);
      stopAt = promotedAt + AFTER_MS;
      return summarize(await running, killedAt, promotedAt);
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
  let stopped = false;
  let signalledAt = Infinity;
  const running = load([g], key, () => stopped || Date.now() > signalledAt + 15_000);
  await new Promise((r) => setTimeout(r, 3_000));
  signalledAt = Date.now();
  g.kill('SIGTERM');
  const code = await g.exited();
  const exitMs = Date.now() - signalledAt;
  stopped = true;
  const outcomes = await running;
  // Requests begun before the signal were accepted: each must have completed.
  const accepted = outcomes.filter((o) => o.start < signalledAt);
  return { exit_ms: exitMs, exit_code: code, accepted: accepted.length, accepted_failed: accepted.filter((o) => o.status !== 200).length };
}

async function main(): Promise<void> {
  const results: Record<string, unknown[]> = { postgres: [], shutdown: [] };
  for (let run = 1; run <= RUNS; run++) {
    if (!values.only || values.only === 'postgres') {
      const r = await postgresRun();
      results.postgres.push(r);
      console.log(JSON.stringify({ run, postgres: r }));
    }
    if (!values.only || values.only === 'shutdown') {
      const db = await benchDatabase();
      try {
        await runMds(['import', 'candles', '--exchange', 'spot', '--symbol', 'BTC-USDT', '--timeframe', '1m', '--file', CANDLES], { DATABASE_URL: db.url });
        const r = await shutdownRun(db.url);
        results.shutdown.push(r);
        console.log(JSON.stringify({ run, shutdown: r }));
      } finally {
        await db.drop();
      }
    }
  }
  console.log(JSON.stringify({ summary: results }, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
