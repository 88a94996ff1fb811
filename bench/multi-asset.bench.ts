/**
 * /v1/multi-asset, 30 symbols x 10,000 1m closes at the start, middle and end of a history
 * generated in SQL (1m candles only: all the read touches), this build against another
 * checkout's (--baseline), alternating rounds of rotating symbols; bodies compared first.
 *   npm run bench:multi-asset -- [--symbols 100] [--minutes 500000] [--width 30] [--rounds 10]
 *     [--per-round 3] [--baseline DIR] [--keep] [--reuse DB]
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_USER, PG_SERVER, ROOT, admin, gatewayEnv, runBench, startProcess, type Proc } from './bench-support';
import { alternate, fetchOnce, sequentialSamples, summarize, type RequestSpec } from './latency';

const { values } = parseArgs({
  options: {
    symbols: { type: 'string', default: '100' },
    minutes: { type: 'string', default: '500000' },
    width: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '10' },
    'per-round': { type: 'string', default: '3' },
    baseline: { type: 'string' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
  },
});

const SYMBOLS = Number(values.symbols);
const MINUTES = Number(values.minutes);
const WIDTH = Math.min(Number(values.width), SYMBOLS);
const PAGE = 10_000;
const MINUTE = 60_000;
/** The history's first minute: a fixed instant, so a kept database is read the same way again. */
const FIRST = Date.UTC(2024, 0, 1);
const load = () => os.loadavg()[0].toFixed(1);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const symbolOf = (i: number) => `MA${String(i).padStart(3, '0')}-USDT`;

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Migrated by `mds migrate`, then SYMBOLS series of MINUTES 1m candles each, one statement per series. */
async function generate(url: string): Promise<void> {
  execFileSync(process.execPath, [path.join(ROOT, 'bin', 'mds.js'), 'migrate'], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }, stdio: 'ignore' });
  await withClient(url, async (c) => {
    const from = new Date(FIRST);
    const to = new Date(FIRST + (MINUTES - 1) * MINUTE);
    await c.query('SELECT mds_ensure_partitions($1, $2, $3)', ['1m', from, to]);
    const t = performance.now();
    for (let i = 0; i < SYMBOLS; i++) {
      // Each series its own level (0.05 to 60,000) and places (2 to 7: six significant digits), as bench:scale's.
      const level = 0.05 * (60_000 / 0.05) ** (i / Math.max(1, SYMBOLS - 1));
      const places = Math.min(7, Math.max(2, 5 - Math.floor(Math.log10(level))));
      const [{ id }] = (await c.query<{ id: number }>(`INSERT INTO series (exchange, symbol) VALUES ('perp', $1) RETURNING id`, [symbolOf(i)])).rows;
      await c.query(
        `INSERT INTO candles (series_id, timeframe, time, open, high, low, close, volume, derived)
         SELECT $1, '1m', t, p, round(p * 1.001, d), round(p * 0.999, d), round(p * (1 + 0.0005 * sin(k / 10.0))::numeric, d), round((50 + 40 * cos(k / 7.0))::numeric, 4), false
         FROM generate_series(0, $4::int - 1) k,
              LATERAL (SELECT $2::timestamptz + k * interval '1 minute' AS t, round(($3::float8 * (1 + 0.1 * sin(k / 1440.0 + $1::int)))::numeric, $5::int) AS p, $5::int AS d) x`,
        [id, from, level, MINUTES, places],
      );
      if ((i + 1) % 10 === 0) console.log(`  ${i + 1} of ${SYMBOLS} series (${Math.round(((i + 1) * MINUTES) / ((performance.now() - t) / 1000))} rows/s)`);
    }
    await c.query('VACUUM ANALYZE candles');
  });
}

/** Request `k` at a position: WIDTH symbols rotating with k, 10,000 minutes from the window's start. */
function request(base: string, key: string, position: 'start' | 'middle' | 'end', k: number): RequestSpec {
  const spare = Math.max(0, MINUTES - PAGE);
  const offset = position === 'start' ? 0 : position === 'middle' ? Math.floor(spare / 2) : spare;
  const symbols = Array.from({ length: WIDTH }, (_, j) => symbolOf((k * WIDTH + j) % SYMBOLS));
  const start = new Date(FIRST + offset * MINUTE).toISOString();
  return { url: `${base}/v1/multi-asset?symbols=${symbols.join(',')}&exchange=perp&timeframe=1m&field=close&start=${start}`, headers: { 'X-API-Key': key } };
}

async function main(): Promise<void> {
  const name = values.reuse ?? `mds_bench_ma_${Date.now().toString(36)}`;
  const u = new URL(PG_SERVER);
  u.pathname = `/${name}`;
  const url = u.toString();
  const gateways: Array<{ label: string; proc: Proc }> = [];
  if (!values.reuse) await admin(`CREATE DATABASE ${name}`);
  try {
    if (!values.reuse) {
      console.log(`generating ${SYMBOLS} series x ${MINUTES} 1m candles in ${name}`);
      const t = performance.now();
      await generate(url);
      console.log(`generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    }
    const rows = await withClient(url, async (c) => Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM candles`)).rows[0].n));
    const key = JSON.parse(
      execFileSync(process.execPath, [path.join(ROOT, 'bin', 'mds.js'), 'keys', 'create', '--user-id', BENCH_USER, '--tier', 'scale'], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }, encoding: 'utf8' }),
    ).key as string;
    const env = { ...gatewayEnv(url), LOG_LEVEL: 'warn' };
    gateways.push({ label: 'this build', proc: await startProcess('src/server.js', env, '/health') });
    if (values.baseline) gateways.push({ label: `baseline (${values.baseline})`, proc: await startProcess('src/server.js', env, '/health', path.resolve(values.baseline)) });
    console.log(`\n${rows.toLocaleString('en')} candles; ${WIDTH} symbols x ${PAGE} closes per request; ${values.rounds} rounds x ${values['per-round']} (load ${load()})`);
    console.log(`| position | ${gateways.map((g) => `${g.label} p50 / p99`).join(' | ')} |${gateways.length > 1 ? ' this / baseline, median of round ratios |' : ''}`);
    console.log(`|---|${gateways.map(() => '---|').join('')}${gateways.length > 1 ? '---|' : ''}`);
    for (const [k, position] of (['start', 'middle', 'end'] as const).entries()) {
      const specs = gateways.map((g) => request(g.proc.url, key, position, k));
      const answers = await Promise.all(specs.map((s) => fetchOnce(s)));
      for (const a of answers) if (a.status !== 200) throw new Error(`${position}: status ${a.status}: ${a.body.slice(0, 200)}`);
      const count = JSON.parse(answers[0].body).count as number;
      if (count !== PAGE) throw new Error(`${position}: ${count} rows, expected ${PAGE}`);
      if (answers.some((a) => a.body !== answers[0].body)) throw new Error(`${position}: the gateways' bodies differ`);
      await alternate(specs, 2, 1); // warm-up
      const perRound = Number(values['per-round']);
      // Each round its own symbols (rotating through all of them, as bench:scale's reads), the gateways' order flipping.
      const samples = gateways.map(() => [] as number[]);
      for (let round = 0; round < Number(values.rounds); round++) {
        const order = gateways.map((_, i) => (round % 2 === 0 ? i : gateways.length - 1 - i));
        for (const i of order) samples[i].push(...(await sequentialSamples(request(gateways[i].proc.url, key, position, 3 + round), perRound)));
      }
      const cells = samples.map((s) => `${summarize(s).p50.toFixed(0)} / ${summarize(s).p99.toFixed(0)} ms`);
      let ratio = '';
      if (samples.length > 1) {
        const ratios: number[] = [];
        for (let i = 0; i + perRound <= samples[0].length; i += perRound) ratios.push(median(samples[0].slice(i, i + perRound)) / median(samples[1].slice(i, i + perRound)));
        ratio = ` ${median(ratios).toFixed(2)} |`;
      }
      console.log(`| ${position} | ${cells.join(' | ')} |${ratio}`);
    }
    console.log(`(load ${load()})`);
  } finally {
    for (const g of gateways) await g.proc.stop();
    if (!values.keep && !values.reuse) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    else console.log(`kept: ${name} (--reuse ${name})`);
  }
}

runBench(main);
