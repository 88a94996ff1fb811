/**
 * Import benchmark, side by side on the same file, each on a fresh database: the floor (`psql
 * \copy` into `floor_candles`, with the candles table's columns, checks and key), the same `\copy`
 * into `candles` for reference, and `mds import candles` as a user runs it (its own process, which
 * also rolls up and computes features and quality), the order rotating per round. Also the server
 * processes' CPU time, which holds when other work stretches times. Options: bench/README.md.
 *   npm run bench:import -- [--rows 1000000] [--rounds 4] [--cpu-prof DIR]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DEMO_SYMBOLS, demoSpotDay } from '../src/domain/demo-data';
import { PG_SERVER as SERVER, ROOT, admin, benchDatabase, runBench } from './bench-support';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '4' },
    'cpu-prof': { type: 'string' },
  },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const MDS = path.join(ROOT, 'bin', 'mds.js');

/** The file a user would import: ISO times, prices with 2 places, volumes with 4. */
function writeCsv(dir: string): string {
  const lines: string[] = ['time,open,high,low,close,volume'];
  const sym = DEMO_SYMBOLS[0];
  let day = Date.UTC(2022, 0, 1);
  while (lines.length <= ROWS) {
    for (const c of demoSpotDay(sym, day)) {
      if (lines.length > ROWS) break;
      lines.push(`${new Date(c.time).toISOString()},${c.open.toFixed(2)},${c.high.toFixed(2)},${c.low.toFixed(2)},${c.close.toFixed(2)},${c.volume.toFixed(4)}`);
    }
    day += 86_400_000;
  }
  const file = path.join(dir, 'candles.csv');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const seconds = (ms: number) => Math.round(ms / 10) / 100;
const ratio = (x: number, y: number) => Math.round((x / y) * 100) / 100;

/** A fresh, migrated database. */
async function freshDatabase(env: NodeJS.ProcessEnv): Promise<{ url: string; drop(): Promise<void> }> {
  const db = await benchDatabase();
  execFileSync('node', [MDS, 'migrate'], { env: { ...env, DATABASE_URL: db.url }, stdio: 'ignore' });
  return db;
}

interface Run {
  wallMs: number;
  /** CPU seconds of the database's server processes during the run (null: the server is not on this machine). */
  serverCpuS: number | null;
  stdout: string;
  stderr: string;
}

const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/**
 * Run a command to its end (at most 10 minutes) while sampling, every 25 ms, the CPU time of
 * the server processes of database `url` from /proc (their last reading counts: a process
 * that ends between samples loses at most its last 25 ms).
 */
async function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, url: string): Promise<Run> {
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  const cpu = new Map<number, number>();
  let local = true;
  const sample = async () => {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
    for (const { pid } of rows) {
      try {
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        cpu.set(pid, (Number(f[11]) + Number(f[12])) / TICKS);
      } catch {
        local = false;
      }
    }
  };
  const t = performance.now();
  // Its own process group, so a run that hangs is killed with its children.
  const child = spawn(cmd, args, { env, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  const limit = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 600_000);
  let code: number | null | undefined;
  while (code === undefined) {
    await sample();
    code = await Promise.race([ended, new Promise<undefined>((r) => setTimeout(() => r(undefined), 25))]);
  }
  const wallMs = performance.now() - t;
  clearTimeout(limit);
  await client.end();
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${code}): ${stderr}`);
  const serverCpuS = local ? [...cpu.values()].reduce((a, b) => a + b, 0) : null;
  return { wallMs, serverCpuS, stdout, stderr };
}

/** `\copy` of the file into the floor's table, or into `candles` of a series 1 (this database only). */
async function copyRun(file: string, env: NodeJS.ProcessEnv, into: 'floor_candles' | 'candles'): Promise<Run> {
  const db = await freshDatabase(env);
  try {
    await admin(
      into === 'floor_candles'
        ? `CREATE TABLE floor_candles (LIKE candles INCLUDING ALL);
           ALTER TABLE floor_candles ALTER COLUMN series_id SET DEFAULT 1, ALTER COLUMN timeframe SET DEFAULT '1m'`
        : `INSERT INTO series (id, exchange, symbol) VALUES (1, 'perp', 'BENCH-USDT');
           ALTER TABLE candles ALTER COLUMN series_id SET DEFAULT 1, ALTER COLUMN timeframe SET DEFAULT '1m';
           SELECT mds_ensure_partitions('1m', timestamptz '2022-01-01 00:00+00', timestamptz '2022-01-01 00:00+00' + ${ROWS} * interval '1 minute')`,
      db.url,
    );
    await admin('CHECKPOINT', db.url);
    const copy = `\\copy ${into} (time, open, high, low, close, volume) FROM '${file}' WITH (FORMAT csv, HEADER true)`;
    return await run('psql', [db.url, '-q', '-v', 'ON_ERROR_STOP=1', '-c', copy], env, db.url);
  } finally {
    await db.drop();
  }
}

interface MdsRun extends Run {
  importMs: number;
  rollupAndFeaturesMs: number;
  rssMb: number;
  nodeCpuS: number;
}

async function mdsRun(file: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<MdsRun> {
  const db = await freshDatabase(env);
  try {
    await admin('CHECKPOINT', db.url);
    const args = ['-f', 'RSS_KB=%M CPU_S=%U+%S', 'node', ...nodeArgs, MDS, 'import', 'candles', '--exchange', 'perp', '--symbol', 'BENCH-USDT', '--timeframe', '1m', '--file', file];
    const r = await run('/usr/bin/time', args, { ...env, DATABASE_URL: db.url }, db.url);
    const out = JSON.parse(r.stdout) as { rows: number; duration_ms: { import: number; rollup_and_features: number } };
    if (out.rows !== ROWS) throw new Error(`imported ${out.rows} rows, expected ${ROWS}`);
    const rssMb = Math.round(Number(/RSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024);
    const cpu = /CPU_S=([\d.]+)\+([\d.]+)/.exec(r.stderr);
    const nodeCpuS = cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN;
    return { ...r, importMs: out.duration_ms.import, rollupAndFeaturesMs: out.duration_ms.rollup_and_features, rssMb, nodeCpuS };
  } finally {
    await db.drop();
  }
}

const cpuS = (x: number | null) => (x === null ? 'n/a' : Math.round(x * 10) / 10);

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-bench-'));
  const env = { ...process.env, LOG_LEVEL: 'silent' };
  try {
    const file = writeCsv(dir);
    console.log(`rows: ${ROWS}, rounds: ${ROUNDS}, server: ${SERVER}, load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const results: Array<Record<string, number | string>> = [];
    const order = ['floor', 'mds', 'candles'];
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate which runs first, so none always meets another's aftermath (checkpoint, autovacuum).
      let floor: Run | undefined;
      let candles: Run | undefined;
      let mds: MdsRun | undefined;
      const turn = [...order.slice(r % 3), ...order.slice(0, r % 3)];
      for (const which of turn) {
        if (which === 'floor') floor = await copyRun(file, env, 'floor_candles');
        else if (which === 'candles') candles = await copyRun(file, env, 'candles');
        else mds = await mdsRun(file, env);
      }
      const floorMs = floor!.wallMs;
      results.push({
        order: turn.join(','),
        psql_copy_s: seconds(floorMs),
        copy_into_candles_s: seconds(candles!.wallMs),
        import_step_s: seconds(mds!.importMs),
        after_import_s: seconds(mds!.rollupAndFeaturesMs),
        whole_command_s: seconds(mds!.wallMs),
        import_vs_copy: ratio(mds!.importMs, floorMs),
        import_vs_candles_copy: ratio(mds!.importMs, candles!.wallMs),
        whole_vs_copy: ratio(mds!.wallMs, floorMs),
        peak_rss_mb: mds!.rssMb,
        // CPU seconds: the server processes of each run, and the mds process itself.
        cpu_copy: cpuS(floor!.serverCpuS),
        cpu_candles_copy: cpuS(candles!.serverCpuS),
        cpu_mds_server: cpuS(mds!.serverCpuS),
        cpu_mds_node: cpuS(mds!.nodeCpuS),
      });
      console.log(JSON.stringify(results[r]));
    }
    console.table(results);
    if (values['cpu-prof']) {
      const profDir = path.resolve(values['cpu-prof']);
      const run = await mdsRun(file, env, ['--cpu-prof', '--cpu-prof-dir', profDir]);
      console.log(`cpu profile in ${profDir} (run of ${seconds(run.wallMs)} s, import step ${seconds(run.importMs)} s)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
