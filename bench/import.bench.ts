/**
 * Import benchmark. 1,000,000 1m candles into PostgreSQL:
 *   A) psql `\copy` of the same rows straight into the candles table (the floor),
 *   B) `mds import candles` as a user runs it (validation + COPY + upsert logic, then rollups),
 * side by side, alternating, on a fresh database; B's peak RSS from /usr/bin/time.
 *
 *   npm run build && node dist/bench/import.bench.js [--rows 1000000] [--rounds 3]
 *   BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEMO_SYMBOLS, demoSpotDay } from '../src/domain/demo-data';
import { PG_SERVER as SERVER, ROOT, admin, benchDatabase } from './bench-support';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '3' } } });
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
function writeFiles(dir: string, seriesId: number): { userCsv: string; tableCsv: string } {
  const user: string[] = ['time,open,high,low,close,volume'];
  const table: string[] = [];
  const sym = DEMO_SYMBOLS[0];
  let day = Date.UTC(2022, 0, 1);
  while (table.length < ROWS) {
    for (const c of demoSpotDay(sym, day)) {
      if (table.length >= ROWS) break;
      const iso = new Date(c.time).toISOString();
      const v = `${c.open.toFixed(2)},${c.high.toFixed(2)},${c.low.toFixed(2)},${c.close.toFixed(2)},${c.volume.toFixed(4)}`;
      user.push(`${iso},${v}`);
      table.push(`${seriesId},1m,${iso},${v},f`);
    }
    day += 86_400_000;
  }
  const userCsv = path.join(dir, 'candles.csv');
  const tableCsv = path.join(dir, 'table.csv');
  writeFileSync(userCsv, user.join('\n') + '\n');
  writeFileSync(tableCsv, table.join('\n') + '\n');
  return { userCsv, tableCsv };
}

const round = (x: number) => Math.round(x * 100) / 100;

function timed<T>(fn: () => T): { ms: number; out: T } {
  const t = performance.now();
  const out = fn();
  return { ms: performance.now() - t, out };
}

async function main(): Promise<void> {
  const db = await benchDatabase();
  const url = db.url;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-bench-'));
  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' };
  try {
    execFileSync('node', [path.join(ROOT, 'bin', 'mds.js'), 'migrate'], { env, stdio: 'ignore' });
    await admin("INSERT INTO series (id, exchange, symbol) VALUES (1, 'perp', 'BENCH-USDT')", url);
    const { userCsv, tableCsv } = writeFiles(dir, 1);
    console.log(`rows: ${ROWS}, rounds: ${ROUNDS}, server: ${SERVER}`);
    const results: Array<Record<string, number>> = [];
    for (let r = 0; r < ROUNDS; r++) {
      await admin('TRUNCATE candles', url);
      await admin('VACUUM ANALYZE candles', url);
      const a = timed(() =>
        execFileSync('psql', [url, '-q', '-c', `\\copy candles (series_id, timeframe, time, open, high, low, close, volume, derived) FROM '${tableCsv}' WITH (FORMAT csv)`]),
      );
      await admin('TRUNCATE candles', url);
      await admin('VACUUM ANALYZE candles', url);
      const b = timed(() =>
        spawnSync(
          '/usr/bin/time',
          ['-f', 'RSS_KB=%M', 'node', path.join(ROOT, 'bin', 'mds.js'), 'import', 'candles', '--exchange', 'perp', '--symbol', 'BENCH-USDT', '--timeframe', '1m', '--file', userCsv],
          { env, encoding: 'utf8' },
        ),
      );
      if (b.out.status !== 0) throw new Error(`mds import failed: ${b.out.stderr}`);
      const out = JSON.parse(b.out.stdout) as { rows: number; duration_ms: { import: number; rollup_and_features: number } };
      if (out.rows !== ROWS) throw new Error(`imported ${out.rows} rows, expected ${ROWS}`);
      const rssMb = Number(/RSS_KB=(\d+)/.exec(b.out.stderr)?.[1] ?? NaN) / 1024;
      results.push({
        psql_copy_s: round(a.ms / 1000),
        mds_total_s: round(b.ms / 1000),
        mds_import_s: round(out.duration_ms.import / 1000),
        mds_rollup_features_s: round(out.duration_ms.rollup_and_features / 1000),
        import_vs_copy: round(out.duration_ms.import / a.ms),
        total_vs_copy: round(b.ms / a.ms),
        peak_rss_mb: Math.round(rssMb),
      });
    }
    console.table(results);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
