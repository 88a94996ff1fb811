/**
 * /v1/ohlcv benchmark, on a PostgreSQL server:
 *  1. GET /v1/ohlcv limit=10000 (1m) through the whole gateway vs a floor server running the
 *     same SQL with pg and building the same JSON bytes by hand (bench/floor-server.ts);
 *     the bytes are checked equal first. p50/p99 of sequential requests, alternating.
 *  2. The same question through GraphQL (POST /graphql).
 *  3. limit=100 at 64 connections (autocannon): throughput, p99 and the gateway's RSS.
 *
 *   npm run build && node dist/bench/ohlcv.bench.js [--requests 200] [--seconds 10] [--rounds 2]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { openServices } from '../src/composition';
import { BENCH_USER, ROOT, benchDatabase, gatewayEnv, load, rssMb, runBench, startProcess } from './bench-support';
import { fetchOnce, sequentialLatency } from './latency';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '200' }, seconds: { type: 'string', default: '10' }, rounds: { type: 'string', default: '2' } },
});
const N = Number(values.requests);

async function main(): Promise<void> {
  const db = await benchDatabase();
  const env = gatewayEnv(db.url);
  execFileSync(process.execPath, [path.join(ROOT, 'bin', 'mds.js'), 'seed-demo'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  const services = await openServices(loadConfig(env));
  const { key } = await services.keys.create({ userId: BENCH_USER, tier: 'scale', label: null });
  const seriesId = (await services.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!;
  const first = (await services.store.candles.firstOpen(seriesId, '1m'))!;
  await services.close();
  const series = { id: seriesId };
  const start = new Date(first).toISOString();
  const end = new Date(first + 9_999 * 60_000).toISOString();

  const gateway = await startProcess('src/server.js', env, '/health');
  const floor = await startProcess('bench/floor-server.js', { DATABASE_URL: db.url }, '/health');
  const auth = { 'X-API-Key': key };
  const restUrl = `${gateway.url}/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${start}&end=${end}&limit=10000`;
  const floorUrl = `${floor.url}/ohlcv?series=${series.id}&symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${start}&end=${end}&limit=10000`;
  const gqlQuery = (shape: string) =>
    JSON.stringify({
      query: `{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1m", start: "${start}", end: "${end}", limit: 10000) { count nextStart ${shape} } } }`,
    });
  const gqlBody = gqlQuery('data { time open high low close volume }');
  const gqlColumns = gqlQuery('columns { time open high low close volume }');
  try {
    const a = await fetchOnce({ url: restUrl, headers: auth });
    const b = await fetchOnce({ url: floorUrl });
    if (a.body !== b.body) throw new Error('gateway and floor bodies differ');
    const rows = (JSON.parse(a.body) as { count: number }).count;
    const g = JSON.parse((await fetchOnce({ url: `${gateway.url}/graphql`, headers: auth, body: gqlBody })).body);
    if (JSON.stringify(g.data.market.candles.data) !== JSON.stringify(JSON.parse(a.body).data)) throw new Error('GraphQL rows differ from REST');
    console.log(`rows per response: ${rows}; body ${(a.body.length / 1e6).toFixed(2)} MB; bytes equal to the floor's: yes; GraphQL rows equal: yes`);

    const cols = JSON.parse((await fetchOnce({ url: `${gateway.url}/graphql`, headers: auth, body: gqlColumns })).body).data.market.candles.columns;
    if (cols.close.length !== rows || cols.close[17] !== JSON.parse(a.body).data[17].close) throw new Error('GraphQL columns differ from REST');
    for (let i = 0; i < 20; i++) {
      await fetchOnce({ url: restUrl, headers: auth });
      await fetchOnce({ url: floorUrl });
      await fetchOnce({ url: `${gateway.url}/graphql`, headers: auth, body: gqlBody });
      await fetchOnce({ url: `${gateway.url}/graphql`, headers: auth, body: gqlColumns });
    }
    const table: Array<Record<string, string | number>> = [];
    for (let round = 1; round <= Number(values.rounds); round++) {
      const f = await sequentialLatency(floorUrl, N);
      const r = await sequentialLatency(restUrl, N, auth);
      const q = await sequentialLatency(`${gateway.url}/graphql`, N, auth, gqlBody);
      const c = await sequentialLatency(`${gateway.url}/graphql`, N, auth, gqlColumns);
      const x = (a: number, b: number) => Math.round((a / b) * 100) / 100;
      table.push({
        round,
        'floor p50': f.p50,
        'REST p50': r.p50,
        'GQL rows p50': q.p50,
        'GQL columns p50': c.p50,
        'REST/floor': x(r.p50, f.p50),
        'rows/REST': x(q.p50, r.p50),
        'columns/REST': x(c.p50, r.p50),
        'floor p99': f.p99,
        'REST p99': r.p99,
        'rows p99': q.p99,
        'columns p99': c.p99,
      });
    }
    console.log(`10,000-row responses, ${N} sequential requests each (ms)`);
    console.table(table);

    const small = `${gateway.url}/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${start}&limit=100`;
    const before = rssMb(gateway.pid);
    const l = await load(small, 64, Number(values.seconds), auth);
    console.log('limit=100 at 64 connections');
    console.table([{ 'req/s': l.rps, 'p50 ms': l.p50, 'p99 ms': l.p99, errors: l.errors, non2xx: l.non2xx, 'RSS before MB': before, 'RSS after MB': rssMb(gateway.pid) }]);
  } finally {
    await gateway.stop();
    await floor.stop();
    await db.drop();
  }
}

runBench(main);
