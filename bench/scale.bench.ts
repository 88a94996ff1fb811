/**
 * Scale benchmark: does the service stay fast as the history grows from 1M to 50M 1m candles? On a
 * fresh database it imports a year of 1m candles per symbol (bench/scale-data.ts) as a user would
 * (`mds import candles`), and at each checkpoint measures a gateway: the quality job, p50/p99 of
 * /v1/ohlcv, /v1/multi-asset and /v1/features across the history, its RSS, disk per row. Writes
 * results.json, summary.md and charts to --out. Options and the disk a full run needs: bench/README.md.
 *   npm run bench:scale -- [--symbols 100] [--days 365] [--checkpoints 1000000,10000000,50000000]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_USER, PG_SERVER, ROOT, admin, gatewayEnv, rssMb, runBench, startProcess, type Proc } from './bench-support';
import { writeSymbolCsv } from './scale-data';
import { markdown, median, writeCharts, type Checkpoint, type ImportRecord, type ScaleResults } from './scale-report';
import { measureReads, qualityJobMs } from './scale-reads';

const { values } = parseArgs({
  options: {
    symbols: { type: 'string', default: '100' },
    days: { type: 'string', default: '365' },
    checkpoints: { type: 'string', default: '1000000,10000000,50000000' },
    requests: { type: 'string', default: '200' },
    'multi-requests': { type: 'string', default: '50' },
    'multi-symbols': { type: 'string', default: '30' },
    budget: { type: 'string', default: '180' },
    'db-url': { type: 'string', default: PG_SERVER },
    'db-name': { type: 'string' },
    keep: { type: 'boolean', default: false },
    existing: { type: 'string' },
    out: { type: 'string', default: path.join(ROOT, 'bench', 'scale') },
    render: { type: 'string' },
  },
});

const DAY = 86_400_000;
const MDS = path.join(ROOT, 'bin', 'mds.js');
const SYMBOLS = Number(values.symbols);
const DAYS = Number(values.days);
const MINUTES = DAYS * 1440;
const CHECKPOINTS = values.checkpoints.split(',').map(Number).sort((a, b) => a - b);
const OUT = path.resolve(values.out);

const log = (msg: string) => process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** The options' arithmetic: every checkpoint reachable, and each after its own import. */
function checkOptions(): void {
  const counts = { '--symbols': SYMBOLS, '--days': DAYS, '--requests': values.requests, '--multi-requests': values['multi-requests'], '--multi-symbols': values['multi-symbols'], '--budget': values.budget };
  for (const [name, v] of Object.entries(counts)) {
    if (!Number.isInteger(Number(v)) || Number(v) < 1) throw new Error(`${name} must be a positive integer`);
  }
  const total = SYMBOLS * MINUTES;
  const after = CHECKPOINTS.map((c) => {
    if (!Number.isInteger(c) || c < 1) throw new Error(`--checkpoints: ${c} is not a positive integer`);
    if (c > total) throw new Error(`--checkpoints: ${int(c)} is beyond ${SYMBOLS} symbols x ${DAYS} days = ${int(total)} 1m candles`);
    return Math.ceil(c / MINUTES);
  });
  const twice = after.findIndex((s, i) => i > 0 && s === after[i - 1]);
  if (twice > 0) throw new Error(`--checkpoints ${CHECKPOINTS[twice - 1]} and ${CHECKPOINTS[twice]} are both reached by import ${after[twice]}: one symbol is ${int(MINUTES)} rows`);
}

/** DATABASE_ENGINE of the bench server (docs/SCALING.md): what the migrator lays out, and how sizes are summed. */
const ENGINE = process.env.DATABASE_ENGINE ?? 'postgres';

/** A fresh database on the bench server, `--db-name` or `mds_scale_…`; on Citus given the workers of the server's own database. */
async function scaleDatabase(server: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = values['db-name'] ?? `mds_scale_${Date.now().toString(36)}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`--db-name ${name}: lower-case letters, digits and _ only`);
  await admin(`CREATE DATABASE ${name}`, server);
  const u = new URL(server);
  u.pathname = `/${name}`;
  if (ENGINE === 'citus') {
    const nodes = await query<{ host: string; port: number; coordinator: boolean }>(server, 'SELECT nodename AS host, nodeport AS port, groupid = 0 AS coordinator FROM pg_dist_node');
    await query(u.toString(), 'CREATE EXTENSION citus');
    for (const n of nodes) {
      if (n.coordinator) {
        await query(u.toString(), 'SELECT citus_set_coordinator_host($1, $2)', [n.host, n.port]);
        continue;
      }
      const worker = new URL(u);
      worker.host = `${n.host}:${n.port}`;
      await query(worker.toString(), 'CREATE EXTENSION IF NOT EXISTS citus');
      await query(u.toString(), 'SELECT citus_add_node($1, $2)', [n.host, n.port]);
    }
  }
  return { name, url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, server) };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** `mds <args>` on the bench database, its JSON output. */
function mds(url: string, args: string[]): unknown {
  const out = execFileSync(process.execPath, [MDS, ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
  return JSON.parse(out);
}

/** One symbol's import as a user runs it, under /usr/bin/time for its peak RSS and CPU. */
async function importSymbol(url: string, symbol: string, file: string, cumulativeRows: number): Promise<ImportRecord> {
  const args = ['-f', 'SCALE_TIME RSS_KB=%M CPU_S=%U+%S', process.execPath, MDS, 'import', 'candles', '--exchange', 'perp', '--symbol', symbol, '--timeframe', '1m', '--file', file];
  const t = performance.now();
  const child = spawn('/usr/bin/time', args, { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - t;
  if (code !== 0) throw new Error(`mds import candles --symbol ${symbol} failed (${code}): ${stderr.trim()}`);
  const out = JSON.parse(stdout) as { rows: number; duration_ms: { import: number; rollup_and_features: number } };
  if (out.rows !== MINUTES) throw new Error(`${symbol}: imported ${out.rows} rows, expected ${MINUTES}`);
  const time = /SCALE_TIME RSS_KB=(\d+) CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr);
  if (!time) throw new Error(`no /usr/bin/time figures for ${symbol}: ${stderr.trim()}`);
  return {
    symbol,
    rows: out.rows,
    cumulativeRows,
    importMs: out.duration_ms.import,
    afterMs: out.duration_ms.rollup_and_features,
    wallMs: Math.round(wallMs),
    importRowsPerS: Math.round(out.rows / (out.duration_ms.import / 1000)),
    wholeRowsPerS: Math.round(out.rows / (wallMs / 1000)),
    peakRssMb: Math.round(Number(time[1]) / 1024),
    cpuS: Math.round((Number(time[2]) + Number(time[3])) * 10) / 10,
  };
}

/** Size on disk of a table, summed over its partitions (its chunks on TimescaleDB, its shards on Citus). */
async function tableSize(url: string, table: string, rows: number) {
  const sizes: Record<string, string> = {
    postgres: `SELECT coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree($1::regclass)), pg_total_relation_size($1::regclass))::bigint AS bytes,
                      greatest(1, (SELECT count(*) FROM pg_partition_tree($1::regclass) WHERE isleaf))::int AS partitions`,
    timescaledb: `SELECT hypertable_size($1::regclass) AS bytes, (SELECT count(*)::int FROM show_chunks($1::regclass)) AS partitions`,
    citus: `SELECT citus_total_relation_size($1::regclass) AS bytes, (SELECT count(*)::int FROM pg_dist_shard WHERE logicalrelid = $1::regclass) AS partitions`,
  };
  const [r] = await query<{ bytes: string; partitions: number }>(url, sizes[ENGINE], [table]);
  const bytes = Number(r.bytes);
  return { bytes, rows, bytesPerRow: rows > 0 ? bytes / rows : NaN, partitions: r.partitions };
}

/** The database's size, on Citus summed over the coordinator and its workers. */
const databaseBytes = async (url: string) =>
  Number(
    (
      await query<{ bytes: string }>(
        url,
        ENGINE === 'citus'
          ? `SELECT pg_database_size(current_database()) + (SELECT sum(result::bigint) FROM run_command_on_workers('SELECT pg_database_size(current_database())')) AS bytes`
          : 'SELECT pg_database_size(current_database()) AS bytes',
      )
    )[0].bytes,
  );

/**
 * On TimescaleDB, compress every chunk (what the policy does to chunks past COMPRESS_AFTER; a chunk
 * written since its compression is compressed again) before sizes are taken, then vacuum the
 * hypertables: the rows moved into compressed form stay as dead rows in the chunks until a
 * vacuum, which autovacuum does on a server that has it on (the bench server may not).
 */
async function compressAll(url: string): Promise<void> {
  if (ENGINE !== 'timescaledb') return;
  await query(url, `SELECT compress_chunk(c, true) FROM (SELECT show_chunks(hypertable_name::regclass) AS c FROM timescaledb_information.hypertables) s`);
  for (const { name } of await query<{ name: string }>(url, `SELECT format('%I.%I', hypertable_schema, hypertable_name) AS name FROM timescaledb_information.hypertables`)) {
    await query(url, `VACUUM ${name}`);
  }
}

/** Sizes and row counts; per 1m candle, what the database grew by since it was empty (migrated). */
async function disk(url: string, emptyBytes: number): Promise<Checkpoint['disk']> {
  const byTf = await query<{ timeframe: string; n: string }>(url, 'SELECT timeframe, count(*) AS n FROM candles GROUP BY timeframe ORDER BY count(*) DESC');
  const candlesByTimeframe = Object.fromEntries(byTf.map((r) => [r.timeframe, Number(r.n)]));
  const [{ n: featureRows }] = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM features');
  const dbBytes = await databaseBytes(url);
  const candles = await tableSize(url, 'candles', byTf.reduce((a, r) => a + Number(r.n), 0));
  const features = await tableSize(url, 'features', Number(featureRows));
  const oneMinute = candlesByTimeframe['1m'] ?? 0;
  return { candles, features, databaseBytes: dbBytes, bytesPer1mCandle: (dbBytes - emptyBytes) / oneMinute, candlesByTimeframe };
}

/** Peak resident memory of a process (VmHWM), MB. */
function peakMb(pid: number): number {
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024);
}

/** The tables and charts again from a results.json (--render FILE), into --out. */
function render(file: string): void {
  const results = JSON.parse(readFileSync(file, 'utf8')) as ScaleResults;
  mkdirSync(OUT, { recursive: true });
  writeFileSync(path.join(OUT, 'summary.md'), markdown(results));
  writeCharts(results, OUT);
  process.stdout.write(markdown(results));
}

/**
 * `--existing NAME`: the reads of a history kept by `--keep` (database NAME on `--db-url`), at
 * its current size: no import; the gateway's first quality run is waited for, not reported. Its symbols and span come from the database;
 * the figures go to stderr and `--out`/existing.json.
 */
async function measureExisting(name: string): Promise<void> {
  const u = new URL(values['db-url']);
  u.pathname = `/${name}`;
  const url = u.toString();
  const symbols = (await query<{ symbol: string }>(url, `SELECT symbol FROM series WHERE exchange = 'perp' ORDER BY symbol`)).map((r) => r.symbol);
  const [span] = await query<{ first: string; last: string }>(
    url,
    `SELECT (extract(epoch FROM min(time)) * 1000)::int8 AS first, (extract(epoch FROM max(time)) * 1000)::int8 AS last FROM candles WHERE series_id = (SELECT min(id) FROM series) AND timeframe = '1m'`,
  );
  const [{ n: rows1m }] = await query<{ n: string }>(url, `SELECT count(*) AS n FROM candles WHERE timeframe = '1m'`);
  const startMs = Number(span.first);
  const minutes = (Number(span.last) - startMs) / 60_000 + 1;
  log(`database ${name}: ${int(Number(rows1m))} 1m candles of ${symbols.length} symbols, ${int(minutes)} minutes each from ${new Date(startMs).toISOString()}`);
  const { key } = mds(url, ['keys', 'create', '--user-id', BENCH_USER, '--tier', 'scale', '--label', 'scale-bench']) as { key: string };
  const gateway = await startProcess('src/server.js', { ...gatewayEnv(url), QUALITY_INTERVAL: '24h' }, '/health');
  try {
    await qualityJobMs(gateway.url);
    const loadAtStart = os.loadavg().map((l) => Number(l.toFixed(2)));
    const options = { requests: Number(values.requests), multiRequests: Number(values['multi-requests']), multiSymbols: Number(values['multi-symbols']), budgetS: Number(values.budget) };
    const reads = await measureReads({ ...options, url: gateway.url, key, symbols, startMs, minutes, log });
    const out = { database: name, rows1m: Number(rows1m), symbols: symbols.length, measuredAt: new Date().toISOString(), loadAtStart, loadAtEnd: os.loadavg().map((l) => Number(l.toFixed(2))), gateway: { rssMb: rssMb(gateway.pid), peakMb: peakMb(gateway.pid) }, reads };
    mkdirSync(OUT, { recursive: true });
    writeFileSync(path.join(OUT, 'existing.json'), JSON.stringify(out, null, 2) + '\n');
    log(`load average ${out.loadAtStart.join(' ')} at the start, ${out.loadAtEnd.join(' ')} at the end; existing.json in ${OUT}`);
  } finally {
    await gateway.stop();
  }
}

async function main(): Promise<void> {
  if (values.render) return render(values.render);
  if (values.existing) return measureExisting(values.existing);
  checkOptions();
  mkdirSync(OUT, { recursive: true });
  const endMs = Math.floor(Date.now() / DAY) * DAY;
  const startMs = endMs - DAYS * DAY;
  const db = await scaleDatabase(values['db-url']);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mds-scale-'));
  let gateway: Proc | undefined;
  // One cleanup, whoever asks first (a signal, or the end of main): the other waits for it.
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await gateway?.stop();
      rmSync(tmp, { recursive: true, force: true });
      if (values.keep) log(`kept database ${db.url}`);
      else await db.drop();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  }
  const settings = ['server_version', 'shared_buffers', 'work_mem', 'max_wal_size', 'autovacuum', 'jit'];
  const postgres = Object.fromEntries(
    (await query<{ name: string; value: string }>(db.url, 'SELECT name, current_setting(name) AS value FROM unnest($1::text[]) AS name', [settings])).map((r) => [r.name, r.value]),
  );
  const git = (...a: string[]) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit = 'unknown';
  try {
    commit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? '+changes' : '');
  } catch {
    // not a git checkout
  }
  const results: ScaleResults = {
    startedAt: new Date().toISOString(),
    finishedAt: null,
    machine: { cpus: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), loadAtStart: os.loadavg().map((l) => Number(l.toFixed(2))), loadAtEnd: null, postgres, commit },
    options: {
      symbols: SYMBOLS,
      days: DAYS,
      checkpoints: CHECKPOINTS,
      requests: Number(values.requests),
      multiRequests: Number(values['multi-requests']),
      multiSymbols: Number(values['multi-symbols']),
      budgetS: Number(values.budget),
      historyStart: new Date(startMs).toISOString(),
      historyEnd: new Date(endMs).toISOString(),
    },
    database: db.name,
    emptyDatabaseBytes: 0,
    imports: [],
    checkpoints: [],
  };
  const save = () => {
    writeFileSync(path.join(OUT, 'results.json'), JSON.stringify(results, null, 2) + '\n');
    writeFileSync(path.join(OUT, 'summary.md'), markdown(results));
    writeCharts(results, OUT);
  };
  try {
    log(`database ${db.name}; ${SYMBOLS} symbols x ${DAYS} days = ${int(SYMBOLS * MINUTES)} 1m candles from ${results.options.historyStart}; checkpoints ${CHECKPOINTS.map(int).join(', ')}; output in ${OUT}`);
    mds(db.url, ['migrate']);
    results.emptyDatabaseBytes = await databaseBytes(db.url);
    const { key } = mds(db.url, ['keys', 'create', '--user-id', BENCH_USER, '--tier', 'scale', '--label', 'scale-bench']) as { key: string };
    const symbols: string[] = [];
    let next = 0;
    let sinceLast = 0;
    for (let i = 0; i < SYMBOLS; i++) {
      const symbol = `SYM${String(i).padStart(3, '0')}-USDT`;
      const file = path.join(tmp, `${symbol}.csv`);
      const g = performance.now();
      writeSymbolCsv(file, i, startMs, MINUTES);
      const genS = ((performance.now() - g) / 1000).toFixed(1);
      const rec = await importSymbol(db.url, symbol, file, (i + 1) * MINUTES);
      rmSync(file);
      results.imports.push(rec);
      symbols.push(symbol);
      sinceLast++;
      log(
        `${symbol}: ${int(rec.rows)} rows (CSV ${genS} s), import step ${(rec.importMs / 1000).toFixed(2)} s = ${int(rec.importRowsPerS)} rows/s, ` +
          `whole ${(rec.wallMs / 1000).toFixed(2)} s = ${int(rec.wholeRowsPerS)} rows/s, peak RSS ${rec.peakRssMb} MB; ${int(rec.cumulativeRows)} stored`,
      );
      if (next < CHECKPOINTS.length && rec.cumulativeRows >= CHECKPOINTS[next]) {
        const t = performance.now();
        log(`checkpoint ${int(CHECKPOINTS[next])}: ${int(rec.cumulativeRows)} 1m candles of ${symbols.length} symbol${symbols.length === 1 ? '' : 's'}`);
        await compressAll(db.url);
        gateway = await startProcess('src/server.js', { ...gatewayEnv(db.url), QUALITY_INTERVAL: '24h' }, '/health');
        const quality = await qualityJobMs(gateway.url);
        const [{ n: records }] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM quality');
        log(`  quality job over all series: ${(quality / 1000).toFixed(2)} s, ${records} records`);
        const rssBeforeMb = rssMb(gateway.pid);
        const reads = await measureReads({ ...results.options, url: gateway.url, key, symbols, startMs, minutes: MINUTES, log });
        const gw = { rssBeforeMb, rssAfterMb: rssMb(gateway.pid), peakMb: peakMb(gateway.pid) };
        await gateway.stop();
        gateway = undefined;
        const recent = results.imports.slice(-sinceLast);
        results.checkpoints.push({
          target: CHECKPOINTS[next],
          rows1m: rec.cumulativeRows,
          symbols: symbols.length,
          measuredAt: new Date().toISOString(),
          importsSince: {
            count: recent.length,
            importRowsPerS: median(recent.map((r) => r.importRowsPerS)),
            wholeRowsPerS: median(recent.map((r) => r.wholeRowsPerS)),
            peakRssMb: Math.max(...recent.map((r) => r.peakRssMb)),
          },
          quality: { ms: Math.round(quality), records },
          reads,
          gateway: gw,
          disk: await disk(db.url, results.emptyDatabaseBytes),
          measureMs: Math.round(performance.now() - t),
        });
        log(`  checkpoint measured in ${((performance.now() - t) / 1000).toFixed(0)} s`);
        save();
        next++;
        sinceLast = 0;
      }
    }
    results.finishedAt = new Date().toISOString();
    results.machine.loadAtEnd = os.loadavg().map((l) => Number(l.toFixed(2)));
    save();
    process.stdout.write(markdown(results));
    log(`done in ${((Date.parse(results.finishedAt) - Date.parse(results.startedAt)) / 60_000).toFixed(1)} min; results.json, summary.md and the charts in ${OUT}`);
  } finally {
    await cleanup();
  }
}

runBench(main);
