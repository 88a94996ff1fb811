/**
 * Soak, on PostgreSQL with Redis quotas: the gateway (its own process, demo data) under a steady
 * mixed load of the routes and GraphQL on a scale key, beside a free key whose 429s are intended;
 * each minute throughput, p50/p99, non-2xx, RSS and V8 heap. Exit 1 on any error or unexpected
 * status; memory trends are reported, not enforced (a GC saw-tooth makes any fixed threshold
 * arbitrary). Options: bench/README.md.
 *   npm run bench:soak -- [--minutes 10] [--rate 50] [--connections 8]
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config';
import { openServices } from '../src/composition';
import { BENCH_USER, benchDatabase, gatewayEnv, rssMb, runBench, slope, startProcess } from './bench-support';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '50' },
    connections: { type: 'string', default: '8' },
  },
});
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const CONNECTIONS = Number(values.connections);

interface Minute {
  minute: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  free200: number;
  free429: number;
  freeOther: number;
  /** Gateway RSS at the end of the minute, and the lowest and highest of its 5-second samples. */
  rssMb: number;
  rssMinMb: number;
  rssMaxMb: number;
  /** V8 heap in use at the end of the minute, from the gateway's own /metrics. */
  heapMb: number;
}

async function main(): Promise<void> {
  const db = await benchDatabase();
  const env = { ...gatewayEnv(db.url), SEED_DEMO: 'true', LOG_LEVEL: 'warn', METRICS_TOKEN: 'soak' };
  const gateway = await startProcess('src/server.js', env, '/health');
  const services = await openServices(loadConfig(env));
  const { key } = await services.keys.create({ userId: BENCH_USER, tier: 'scale', label: null });
  const { key: freeKey } = await services.keys.create({ userId: BENCH_USER, tier: 'free', label: null });
  const now = services.clock();
  await services.close();

  const iso = (ms: number) => new Date(ms).toISOString();
  const h = 3_600_000;
  const paths = [
    `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${iso(now - 20 * h)}&limit=1000`,
    `/v1/funding?symbol=ETH-USDT&exchange=perp&start=${iso(now - 30 * 24 * h)}&normalized=true`,
    `/v1/features?symbol=SOL-USDT&exchange=spot&timeframe=1h&features=rsi_14,macd,macd_signal,bb_pct,atr_14,vwap_20&start=${iso(now - 40 * 24 * h)}`,
    `/v1/multi-asset?symbols=BTC-USDT,ETH-USDT,SOL-USDT,BNB-USDT,XRP-USDT&exchange=perp&timeframe=1h&field=close&start=${iso(now - 30 * 24 * h)}`,
    `/v1/quality?symbol=BTC-USDT&exchange=perp`,
    `/v1/markets`,
  ];
  const gql = JSON.stringify({
    query: `{ market(exchange: "perp", symbol: "ETH-USDT") { candles(timeframe: "1h", start: "${iso(now - 30 * 24 * h)}", limit: 500) { count columns { time close } } quality { timeframe dqs } } }`,
  });
  const requests: autocannon.Request[] = [
    ...paths.map((path) => ({ method: 'GET' as const, path })),
    { method: 'POST', path: '/graphql', body: gql, headers: { 'content-type': 'application/json' } },
  ];

  const minutes: Minute[] = [];
  try {
    // Every request answers 200 before the clock starts (the data is there, the key works).
    for (const r of requests) {
      const res = await fetch(gateway.url + r.path, { method: r.method, headers: { 'X-API-Key': key, ...(r.headers ?? {}) }, body: r.body as string | undefined });
      if (res.status !== 200) throw new Error(`${r.method} ${r.path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    console.log(`gateway pid ${gateway.pid}, RSS ${rssMb(gateway.pid)} MB after seeding; ${MINUTES} min at ${RATE} req/s over ${CONNECTIONS} connections`);
    for (let m = 1; m <= MINUTES; m++) {
      const free = { ok: 0, limited: 0, other: 0 };
      const freeRun = new Promise<void>((resolve, reject) => {
        const inst = autocannon(
          { url: `${gateway.url}/v1/features/available`, connections: 1, overallRate: 1, duration: 60, headers: { 'X-API-Key': freeKey } },
          (err) => (err ? reject(err) : resolve()),
        );
        inst.on('response', (_client, status) => {
          if (status === 200) free.ok++;
          else if (status === 429) free.limited++;
          else free.other++;
        });
      });
      const rssSamples: number[] = [];
      const sampler = setInterval(() => rssSamples.push(rssMb(gateway.pid)), 5_000);
      const [main] = await Promise.all([
        autocannon({ url: gateway.url, connections: CONNECTIONS, overallRate: RATE, duration: 60, headers: { 'X-API-Key': key }, requests }),
        freeRun,
      ]);
      const scrape = await fetch(`${gateway.url}/metrics`, { headers: { Authorization: 'Bearer soak' } });
      if (scrape.status !== 200) throw new Error(`/metrics answered ${scrape.status}`);
      clearInterval(sampler);
      const heap = /^mds_nodejs_heap_size_used_bytes (\S+)$/m.exec(await scrape.text());
      const row: Minute = {
        minute: m,
        rps: Math.round(main.requests.average),
        p50: main.latency.p50,
        p99: main.latency.p99,
        non2xx: main.non2xx,
        errors: main.errors + main.timeouts,
        free200: free.ok,
        free429: free.limited,
        freeOther: free.other,
        rssMb: rssMb(gateway.pid),
        rssMinMb: Math.min(...rssSamples),
        rssMaxMb: Math.max(...rssSamples),
        heapMb: heap ? Math.round(Number(heap[1]) / 1e6) : NaN,
      };
      minutes.push(row);
      console.log(JSON.stringify(row));
    }
  } finally {
    await gateway.stop();
    await db.drop();
  }

  // The trend after the first two minutes (start-up and warm caches), of the end-of-minute
  // RSS and of each minute's lowest sample, the floor the collector returns to.
  const trend = (pick: (r: Minute) => number) => {
    const ys = minutes.slice(2).map(pick);
    return ys.length > 1 ? `${slope(ys).toFixed(2)} MB/min` : 'n/a';
  };
  const total = minutes.reduce((a, r) => a + r.rps * 60, 0);
  const bad = minutes.reduce((a, r) => a + r.non2xx + r.errors + r.freeOther, 0);
  console.log(
    `\nsoak: ${MINUTES} min, ~${total.toLocaleString('en-US')} requests on the scale key; non-2xx/errors (scale key) + non-200/429 (free key): ${bad}; ` +
      `free key: ${minutes.reduce((a, r) => a + r.free200, 0)} x 200, ${minutes.reduce((a, r) => a + r.free429, 0)} x 429 (intended)`,
  );
  console.log(`p99 per minute: ${minutes.map((r) => r.p99).join(', ')} ms; max ${Math.max(...minutes.map((r) => r.p99))} ms`);
  console.log(
    `RSS at minute end: ${minutes.map((r) => r.rssMb).join(', ')} MB (slope after minute 2: ${trend((r) => r.rssMb)}); ` +
      `lowest 5 s sample per minute: ${minutes.map((r) => r.rssMinMb).join(', ')} MB (slope ${trend((r) => r.rssMinMb)}); ` +
      `V8 heap used: ${minutes.map((r) => r.heapMb).join(', ')} MB (slope ${trend((r) => r.heapMb)})`,
  );
  if (bad > 0) process.exitCode = 1;
}

runBench(main);
