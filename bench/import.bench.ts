/**
 * Import benchmark, side by side in one run on the same file. Per round, each on a fresh
 * database (created and migrated untimed):
 *   floor) `psql \copy` of candles.csv into `floor_candles`, a table with the candles table's
 *          columns, types, checks and primary key (series and timeframe as defaults);
 *   candles) the same `\copy` into `candles` itself (for reference: its foreign key to
 *          `series` is checked per row, which the floor's table does not have);
 *   mds)   `mds import candles --exchange perp --symbol BENCH-USDT --timeframe 1m --file candles.csv`
 *          as a user runs it: its own process, which also rolls up, computes the features and
 *          the quality of the symbol. The import step is the command's own `duration_ms.import`;
 *          the whole command is its wall time; peak RSS from /usr/bin/time.
 * The three rotate which goes first; the server is checkpointed before each measurement.
 *
 *   npm run build && node dist/bench/import.bench.js [--rows 1000000] [--rounds 4] [--cpu-prof DIR]
 *   BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server.
 *   --cpu-prof DIR: one more, untimed mds run under `node --cpu-prof`, the profile in DIR.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
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

/** `\copy` of the file into the floor's table, or into `candles` of a series 1 (this database only). */
async function copyRun(file: string, env: NodeJS.ProcessEnv, into: 'floor_candles' | 'candles'): Promise<number> {
  const db = await freshDatabase(env);
  try {
    await admin(
      into === 'floor_candles'
        ? `CREATE TABLE floor_candles (LIKE candles INCLUDING ALL);
           ALTER TABLE floor_candles ALTER COLUMN series_id SET DEFAULT 1, ALTER COLUMN timeframe SET DEFAULT '1m'`
        : `INSERT INTO series (id, exchange, symbol) VALUES (1, 'perp', 'BENCH-USDT');
           ALTER TABLE candles ALTER COLUMN series_id SET DEFAULT 1, ALTER COLUMN timeframe SET DEFAULT '1m'`,
      db.url,
    );
    await admin('CHECKPOINT', db.url);
    const t = performance.now();
    execFileSync('psql', [db.url, '-q', '-v', 'ON_ERROR_STOP=1', '-c', `\\copy ${into} (time, open, high, low, close, volume) FROM '${file}' WITH (FORMAT csv, HEADER true)`]);
    return performance.now() - t;
  } finally {
    await db.drop();
  }
}

interface MdsRun {
  wallMs: number;
  importMs: number;
  rollupAndFeaturesMs: number;
  rssMb: number;
}

async function mdsRun(file: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<MdsRun> {
  const db = await freshDatabase(env);
  try {
    await admin('CHECKPOINT', db.url);
    const args = ['-f', 'RSS_KB=%M', 'node', ...nodeArgs, MDS, 'import', 'candles', '--exchange', 'perp', '--symbol', 'BENCH-USDT', '--timeframe', '1m', '--file', file];
    const t = performance.now();
    const p = spawnSync('/usr/bin/time', args, { env: { ...env, DATABASE_URL: db.url }, encoding: 'utf8' });
    const wallMs = performance.now() - t;
    if (p.status !== 0) throw new Error(`mds import failed: ${p.stderr}`);
    const out = JSON.parse(p.stdout) as { rows: number; duration_ms: { import: number; rollup_and_features: number } };
    if (out.rows !== ROWS) throw new Error(`imported ${out.rows} rows, expected ${ROWS}`);
    const rssMb = Math.round(Number(/RSS_KB=(\d+)/.exec(p.stderr)?.[1] ?? NaN) / 1024);
    return { wallMs, importMs: out.duration_ms.import, rollupAndFeaturesMs: out.duration_ms.rollup_and_features, rssMb };
  } finally {
    await db.drop();
  }
}

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
      let floorMs = 0;
      let candlesMs = 0;
      let mds: MdsRun | undefined;
      const turn = [...order.slice(r % 3), ...order.slice(0, r % 3)];
      for (const which of turn) {
        if (which === 'floor') floorMs = await copyRun(file, env, 'floor_candles');
        else if (which === 'candles') candlesMs = await copyRun(file, env, 'candles');
        else mds = await mdsRun(file, env);
      }
      results.push({
        order: turn.join(','),
        psql_copy_s: seconds(floorMs),
        copy_into_candles_s: seconds(candlesMs),
        import_step_s: seconds(mds!.importMs),
        after_import_s: seconds(mds!.rollupAndFeaturesMs),
        whole_command_s: seconds(mds!.wallMs),
        import_vs_copy: ratio(mds!.importMs, floorMs),
        import_vs_candles_copy: ratio(mds!.importMs, candlesMs),
        whole_vs_copy: ratio(mds!.wallMs, floorMs),
        peak_rss_mb: mds!.rssMb,
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
