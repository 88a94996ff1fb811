/**
 * Access-path benchmark. GET /v1/features/available through the whole
 * gateway (request id, CORS, API-key auth with its cache, Redis quota script, rate-limit
 * headers, JSON log line) against a bare Express 5 route returning the same body, side by
 * side in one run, alternating.
 *
 *   npm run bench:access -- [--seconds 10] [--rounds 2]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { openServices } from '../src/composition';
import { BENCH_USER, benchDatabase, gatewayEnv, load, runBench, startProcess, type LoadResult } from './bench-support';
import { sequentialLatency } from './latency';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, rounds: { type: 'string', default: '2' } } });
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const PATH = '/v1/features/available';

async function main(): Promise<void> {
  const db = await benchDatabase();
  const env = gatewayEnv(db.url);
  const services = await openServices(loadConfig(env));
  const { key } = await services.keys.create({ userId: BENCH_USER, tier: 'scale', label: null });
  await services.close();
  const gateway = await startProcess('src/server.js', env, '/health');
  const bare = await startProcess('bench/bare-server.js', {}, PATH);
  const rows: Array<Record<string, string | number>> = [];
  const row = (round: number, target: string, conns: number, r: LoadResult) =>
    rows.push({ round, target, connections: conns, 'req/s': r.rps, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors, non2xx: r.non2xx });
  try {
    // Warm-up: JIT, key cache, pools.
    await load(gateway.url + PATH, 8, 2, { 'X-API-Key': key });
    await load(bare.url + PATH, 8, 2);
    const latency: Array<Record<string, string | number>> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const b = await load(bare.url + PATH, 64, SECONDS);
      const g = await load(gateway.url + PATH, 64, SECONDS, { 'X-API-Key': key });
      row(round, 'bare express', 64, b);
      row(round, 'gateway (auth+quota)', 64, g);
      rows.push({ round, target: 'gateway / bare throughput', connections: 64, 'req/s': `${Math.round((g.rps / b.rps) * 100)}%` });
      const bl = await sequentialLatency(bare.url + PATH, 5000);
      const gl = await sequentialLatency(gateway.url + PATH, 5000, { 'X-API-Key': key });
      latency.push({
        round,
        'bare p50 ms': bl.p50,
        'bare p99 ms': bl.p99,
        'gateway p50 ms': gl.p50,
        'gateway p99 ms': gl.p99,
        'added p50 ms': Math.round((gl.p50 - bl.p50) * 1000) / 1000,
        'added p99 ms': Math.round((gl.p99 - bl.p99) * 1000) / 1000,
      });
    }
    console.log('Throughput, 64 connections, autocannon');
    console.table(rows);
    console.log('Latency, 1 connection, 5,000 sequential requests');
    console.table(latency);
  } finally {
    await gateway.stop();
    await bare.stop();
    await db.drop();
  }
}

runBench(main);
