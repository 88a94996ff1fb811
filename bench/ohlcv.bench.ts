/**
 * The read paths side by side, on PostgreSQL with Redis quotas: 10,000 1m candles from the floor
 * (bench/floor-server.ts), REST, GraphQL rows and columns, Parquet and Arrow; /v1/features against
 * the floor; a 304 from the remembered tag against the full page; limit=100 pages at 32
 * connections. Bodies are checked first. Each comparison is its own pair, the order flipping every
 * round, so drift falls on both alike and neither pays for a third path's garbage. Options: bench/README.md.
 *   npm run bench:ohlcv -- [--rounds 25] [--per-round 4] [--runs 2] [--seconds 10] [--skip-formats] [--only TEXT]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { openServices } from '../src/composition';
import { TECHNICAL_FEATURES } from '../src/domain/feature-catalogue';
import { BENCH_USER, ROOT, benchDatabase, gatewayEnv, load, rssMb, runBench, startProcess } from './bench-support';
import { fetchOnce, oneConnection, sequentialSamples, summarize, type RequestSpec } from './latency';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '25' },
    'per-round': { type: 'string', default: '4' },
    runs: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '10' },
    /** Rounds of the limit=100 throughput pair (each side `--seconds` per round, the order flipping). */
    'load-rounds': { type: 'string', default: '3' },
    /** The gateway without its memory of small pages (RESPONSE_CACHE_MB=0): every request reads. */
    'no-response-cache': { type: 'boolean', default: false },
    'skip-formats': { type: 'boolean', default: false },
    /** Only the pairs whose name contains this (e.g. 304), without the rotation and the load. */
    only: { type: 'string' },
  },
});

interface Path extends RequestSpec {
  name: string;
}

/** Every path `perRound` times per round, the order rotating; samples per path (ms). */
async function alternate(paths: Path[], rounds: number, perRound: number): Promise<Map<string, number[]>> {
  const samples = new Map(paths.map((p) => [p.name, [] as number[]]));
  const agents = paths.map(() => oneConnection());
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < paths.length; k++) {
      const i = (round + k) % paths.length;
      samples.get(paths[i].name)!.push(...(await sequentialSamples(paths[i], perRound, agents[i])));
    }
  }
  for (const a of agents) a.destroy();
  return samples;
}

/**
 * The ratio of the two paths' medians within each round (`perRound` samples each, taken back to
 * back), then the median and quartiles of those ratios over the rounds: drift of the machine
 * between rounds cancels out.
 */
function roundRatios(a: readonly number[], b: readonly number[], perRound: number): string {
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const ratios: number[] = [];
  for (let i = 0; i + perRound <= a.length; i += perRound) ratios.push(median(a.slice(i, i + perRound)) / median(b.slice(i, i + perRound)));
  ratios.sort((x, y) => x - y);
  const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))].toFixed(2);
  return `${at(0.5)} [${at(0.25)}, ${at(0.75)}]`;
}

/** The name `--only` picks the throughput pair by. */
const THROUGHPUT = 'limit=100 gateway / floor';

async function main(): Promise<void> {
  const db = await benchDatabase();
  const env = { ...gatewayEnv(db.url), ...(values['no-response-cache'] ? { RESPONSE_CACHE_MB: '0' } : {}) };
  execFileSync(process.execPath, [path.join(ROOT, 'bin', 'mds.js'), 'seed-demo'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  const services = await openServices(loadConfig(env));
  const { key } = await services.keys.create({ userId: BENCH_USER, tier: 'scale', label: null });
  // GraphQL's page fields are limited per key on every plan (ROWS_FIELD_LIMIT): its requests
  // take turns over keys enough to stay under it, so every timed answer is a page.
  const graphqlKeys = await Promise.all(Array.from({ length: 12 }, () => services.keys.create({ userId: BENCH_USER, tier: 'scale', label: null }).then((k) => k.key)));
  const seriesId = (await services.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!;
  const first = (await services.store.candles.firstOpen(seriesId, '1m'))!;
  await services.close();
  const start = new Date(first).toISOString();
  const end = new Date(first + 9_999 * 60_000).toISOString();

  const gateway = await startProcess('src/server.js', env, '/health');
  const floor = await startProcess('bench/floor-server.js', { DATABASE_URL: db.url }, '/health');
  const auth = { 'X-API-Key': key };
  const market = `symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${start}&end=${end}`;
  const features = TECHNICAL_FEATURES.join(',');
  const rest = (route: string, extra = '') => ({ url: `${gateway.url}${route}?${market}${extra}`, headers: auth });
  let turn = 0;
  const gql = (shape: string) => ({
    url: `${gateway.url}/graphql`,
    get headers() {
      return { 'X-API-Key': graphqlKeys[turn++ % graphqlKeys.length] };
    },
    refuse: /^\{"errors"/,
    body: JSON.stringify({
      query: `{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "1m", start: "${start}", end: "${end}", limit: 10000) { count nextStart ${shape} } } }`,
    }),
  });
  const paths: Path[] = [
    { name: 'floor ohlcv', url: `${floor.url}/ohlcv?series=${seriesId}&${market}&limit=10000` },
    { name: 'REST ohlcv', ...rest('/v1/ohlcv', '&limit=10000') },
    { name: 'GraphQL rows', ...gql('data { time open high low close volume }') },
    { name: 'GraphQL columns', ...gql('columns { time open high low close volume }') },
    { name: 'floor features', url: `${floor.url}/features?series=${seriesId}&${market}&features=${features}` },
    { name: 'REST features', ...rest('/v1/features', `&features=${features}`) },
  ];
  if (!values['skip-formats']) {
    paths.push(
      { name: 'ohlcv parquet', ...rest('/v1/ohlcv', '&limit=10000&format=parquet') },
      { name: 'ohlcv arrow', ...rest('/v1/ohlcv', '&limit=10000&format=arrow') },
      { name: 'features parquet', ...rest('/v1/features', `&features=${features}&format=parquet`) },
      { name: 'features arrow', ...rest('/v1/features', `&features=${features}&format=arrow`) },
    );
  }
  try {
    const bodies = new Map<string, { status: number; body: string; bytes: number; etag?: string }>();
    for (const p of paths) {
      const r = await fetchOnce(p);
      if (r.status !== 200) throw new Error(`${p.name}: status ${r.status} ${r.body.slice(0, 200)}`);
      bodies.set(p.name, r);
    }
    if (bodies.get('REST ohlcv')!.body !== bodies.get('floor ohlcv')!.body) throw new Error('REST and floor candle bodies differ');
    if (bodies.get('REST features')!.body !== bodies.get('floor features')!.body) throw new Error('REST and floor feature bodies differ');
    const restRows = JSON.parse(bodies.get('REST ohlcv')!.body).data;
    if (JSON.stringify(JSON.parse(bodies.get('GraphQL rows')!.body).data.market.candles.data) !== JSON.stringify(restRows)) throw new Error('GraphQL rows differ from REST');
    const cols = JSON.parse(bodies.get('GraphQL columns')!.body).data.market.candles.columns;
    if (cols.close.length !== restRows.length || cols.close[17] !== restRows[17].close) throw new Error('GraphQL columns differ from REST');
    console.log(`rows: ${restRows.length}; bodies equal: REST = floor (candles and features), GraphQL rows = REST`);
    const etag = bodies.get('REST ohlcv')!.etag!;
    paths.push({ name: 'REST ohlcv 304', ...rest('/v1/ohlcv', '&limit=10000'), headers: { ...auth, 'If-None-Match': etag }, expect: 304 });
    // The 200 above remembered its tag: a 304 answered from it carries the same tag.
    const revalidated = await fetchOnce(paths[paths.length - 1]);
    if (revalidated.status !== 304 || revalidated.etag !== etag) throw new Error(`304 revalidation: status ${revalidated.status}, tag ${revalidated.etag}`);

    // Warm-up: JIT, connection pools, PostgreSQL's caches.
    await alternate(paths, 3, 2);
    const byName = new Map(paths.map((p) => [p.name, p]));
    // Each comparison on its own: its two paths alternate (the order flipping every round), so
    // neither pays for the garbage a third path left in the gateway, and the machine's drift
    // falls on both alike.
    const PAIRS: Array<[string, string]> = [
      ['REST ohlcv', 'floor ohlcv'],
      ['GraphQL rows', 'REST ohlcv'],
      ['GraphQL columns', 'REST ohlcv'],
      ['REST features', 'floor features'],
      ['REST ohlcv 304', 'REST ohlcv'],
    ];
    if (!values['skip-formats']) {
      PAIRS.push(['ohlcv parquet', 'REST ohlcv'], ['ohlcv arrow', 'REST ohlcv'], ['features parquet', 'REST features'], ['features arrow', 'REST features']);
    }
    const only = values.only;
    if (only !== undefined) PAIRS.splice(0, PAIRS.length, ...PAIRS.filter(([a, b]) => `${a} / ${b}`.includes(only)));
    const runs = Number(values.runs);
    for (let run = 1; run <= runs && PAIRS.length > 0; run++) {
      console.log(`\nrun ${run}: each pair alternating, ${values.rounds} rounds x ${values['per-round']} sequential requests per path (ms)`);
      const rows = [];
      for (const [a, b] of PAIRS) {
        const samples = await alternate([byName.get(a)!, byName.get(b)!], Number(values.rounds), Number(values['per-round']));
        const sa = summarize(samples.get(a)!);
        const sb = summarize(samples.get(b)!);
        rows.push({
          comparison: `${a} / ${b}`,
          [`p50`]: `${sa.p50} / ${sb.p50}`,
          ratio: Math.round((sa.p50 / sb.p50) * 100) / 100,
          'round ratios: median [q1, q3]': roundRatios(samples.get(a)!, samples.get(b)!, Number(values['per-round'])),
          p99: `${sa.p99} / ${sb.p99}`,
          bytes: `${a.endsWith('304') ? 0 : bodies.get(a)!.bytes} / ${bodies.get(b)!.bytes}`,
        });
      }
      console.table(rows);
    }
    if (only === undefined) {
      // The same paths all in one rotation (a gateway request also pays for the garbage of the
      // heavier paths before it): for reference.
      const samples = await alternate(paths, Number(values.rounds), Number(values['per-round']));
      console.log('\nall paths in one rotation (ms)');
      console.table(paths.map((p) => ({ path: p.name, ...summarize(samples.get(p.name)!), 'body bytes': p.expect === 304 ? 0 : bodies.get(p.name)!.bytes })));
    }
    if (only !== undefined && !THROUGHPUT.includes(only)) return;
    // The throughput pair: limit=100 pages at 32 connections, gateway and floor alternating
    // (the order flipping every round), so the machine's drift falls on both alike.
    const small = `${market}&limit=100`;
    const rounds = [];
    const before = rssMb(gateway.pid);
    for (let round = 0; round < Number(values['load-rounds']); round++) {
      const runFloor = () => load(`${floor.url}/ohlcv?series=${seriesId}&${small}`, 32, Number(values.seconds));
      const runGateway = () => load(`${gateway.url}/v1/ohlcv?${small}`, 32, Number(values.seconds), auth);
      const [f, g] = round % 2 === 0 ? [await runFloor(), await runGateway()] : (([g2, f2]) => [f2, g2])([await runGateway(), await runFloor()]);
      if (g.errors || g.non2xx || f.errors || f.non2xx) throw new Error(`throughput pair: errors or non-2xx (gateway ${g.errors}/${g.non2xx}, floor ${f.errors}/${f.non2xx})`);
      rounds.push({ gateway: g.rps, floor: f.rps, ratio: Math.round((g.rps / f.rps) * 100) / 100, 'gateway p50/p99': `${g.p50}/${g.p99}`, 'floor p50/p99': `${f.p50}/${f.p99}` });
    }
    console.log(`\n${THROUGHPUT}: ${values['load-rounds']} rounds of ${values.seconds} s per side (req/s)`);
    console.table(rounds);
    const ratios = rounds.map((r) => r.ratio).sort((a, b) => a - b);
    console.log(`gateway / floor throughput, median of the rounds: ${ratios[ratios.length >> 1].toFixed(2)}; gateway RSS ${before} -> ${rssMb(gateway.pid)} MB`);
  } finally {
    await gateway.stop();
    await floor.stop();
    await db.drop();
  }
}

runBench(main);
