/**
 * The embedded default as a new user meets it: `npm start` (scripts/start.js) on a DATA_DIR that
 * does not exist yet, timed to a healthy server, its RSS 10 s later; then /v1/ohlcv 10,000 1m
 * candles from that server against a gateway on PostgreSQL over the same demo data (seeded by
 * `mds seed-demo`; bodies compared first), alternating rounds, medians of round ratios.
 *   npm run bench:embedded -- [--starts 3] [--rounds 20] [--per-round 5]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { openServices } from '../src/composition';
import { BENCH_USER, PG_SERVER, ROOT, admin, freePort, rssMb, runBench, startProcess } from './bench-support';
import { alternate, fetchOnce, summarize, type RequestSpec } from './latency';

const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '20' },
    'per-round': { type: 'string', default: '5' },
  },
});

const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
/** Every request admitted: the pro key of the first start, and the PostgreSQL gateway's. */
const TIER_LIMITS = JSON.stringify({ pro: { minuteRequests: 1_000_000_000, dailyRequests: null } });
const load = () => os.loadavg()[0].toFixed(1);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** CPU seconds of a process and of the children it has waited for (the seed's). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS;
}

interface FirstStart {
  url: string;
  key: string;
  seconds: number;
  cpu: number;
  rss: number;
  load: string;
  stop(): Promise<void>;
}

/** `npm start` on a new DATA_DIR: to /health 200, then 10 s; its first-start key from stdout. */
async function firstStart(dataDir: string): Promise<FirstStart> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', TIER_LIMITS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out}`);
    if (await fetch(`${url}/health`).then((r) => r.status === 200, () => false)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(child.pid!);
  const loadAtHealthy = load();
  await new Promise((r) => setTimeout(r, 10_000));
  const key = /shown once\): (\S+)/.exec(out)?.[1];
  if (!key) throw new Error(`no first-start key in the output:\n${out}`);
  return {
    url,
    key,
    seconds,
    cpu,
    rss: rssMb(child.pid!),
    load: loadAtHealthy,
    stop: () => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')))),
  };
}

async function main(): Promise<void> {
  const starts: FirstStart[] = [];
  const dirs: string[] = [];
  console.log(`first start: npm start on a new DATA_DIR, ${values.starts} times`);
  console.log('| start | to healthy | CPU s (server + seed) | RSS 10 s after | load |\n|---|---|---|---|---|');
  for (let i = 1; i <= Number(values.starts); i++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'emb-bench-'));
    dirs.push(dir);
    const s = await firstStart(path.join(dir, 'data'));
    console.log(`| ${i} | ${s.seconds.toFixed(1)} s | ${s.cpu.toFixed(1)} | ${s.rss} MB | ${s.load} |`);
    // The last one serves the reads.
    if (i < Number(values.starts)) await s.stop();
    starts.push(s);
  }
  const embedded = starts[starts.length - 1];
  console.log(`medians: ${median(starts.map((s) => s.seconds)).toFixed(1)} s to healthy, ${median(starts.map((s) => s.rss))} MB`);

  const name = `emb_bench_${Date.now().toString(36)}`;
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(PG_SERVER);
  u.pathname = `/${name}`;
  const env = { DATABASE_URL: u.toString(), TIER_LIMITS };
  let gateway: Awaited<ReturnType<typeof startProcess>> | undefined;
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'bin', 'mds.js'), 'seed-demo'], { env: { ...process.env, ...env }, stdio: 'ignore' });
    const services = await openServices(loadConfig(env));
    const { key } = await services.keys.create({ userId: BENCH_USER, tier: 'pro', label: null });
    await services.close();
    gateway = await startProcess('src/server.js', env, '/health');
    // Both seeds hold 1m candles from 7 days before their hour: 10,000 from an hour after that.
    const start = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 7 * 86_400_000 + 3_600_000).toISOString();
    const query = `/v1/ohlcv?exchange=spot&symbol=BTC-USDT&timeframe=1m&limit=10000&start=${start}`;
    const paths: RequestSpec[] = [
      { url: embedded.url + query, headers: { 'X-API-Key': embedded.key } },
      { url: gateway.url + query, headers: { 'X-API-Key': key } },
    ];
    const [a, b] = await Promise.all(paths.map((p) => fetchOnce(p)));
    if (a.status !== 200 || b.status !== 200) throw new Error(`statuses ${a.status}, ${b.status}: ${a.body.slice(0, 200)} ${b.body.slice(0, 200)}`);
    const rows = JSON.parse(a.body).data.length;
    const same = a.body === b.body;
    console.log(`\n/v1/ohlcv ${rows} rows; bodies ${same ? 'equal' : 'DIFFER'} (${a.bytes} and ${b.bytes} bytes)`);
    if (!same || rows !== 10_000) throw new Error('the two servers do not serve the same 10,000 candles');
    await alternate(paths, 3, 2); // warm-up
    const perRound = Number(values['per-round']);
    const [pglite, postgres] = await alternate(paths, Number(values.rounds), perRound);
    const ratios: number[] = [];
    for (let i = 0; i + perRound <= pglite.length; i += perRound) ratios.push(median(pglite.slice(i, i + perRound)) / median(postgres.slice(i, i + perRound)));
    ratios.sort((x, y) => x - y);
    const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))].toFixed(2);
    console.log(`${values.rounds} rounds x ${perRound} sequential requests each, alternating (load ${load()})`);
    console.log(`PGlite p50 ${summarize(pglite).p50} ms, PostgreSQL p50 ${summarize(postgres).p50} ms`);
    console.log(`PGlite / PostgreSQL, median of round ratios: ${at(0.5)} [quartiles ${at(0.25)}, ${at(0.75)}]`);
  } finally {
    await gateway?.stop();
    await embedded.stop();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

runBench(main);
