/**
 * Ingest benchmark: backfill from the venue simulator (`IngestService.sync`, what `mds sync` runs)
 * of a year of 1m Binance spot candles with rollups, features and quality. Goals: at most 30 s with
 * no rate limits, peak RSS under 500 MB. Each sync runs in a child process (its RSS the service's
 * alone) on a fresh database, its phases timed by wrapping the write path's methods at run time:
 * without limits, within the venues' limits, and on PGlite. Options: bench/README.md.
 *   npm run bench:ingest -- [--runs 2] [--limited-runs 1] [--pglite-runs 1]
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { openServices } from '../src/composition';
import { CandlesRepository } from '../src/db/candles.repository';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, bucketStart, lastClosedOpen } from '../src/domain/timeframe';
import { FeaturePrecomputeService } from '../src/services/derived/feature-precompute.service';
import { LiveWriter } from '../src/services/ingest/live-writer';
import { QualityService } from '../src/services/derived/quality.service';
import { BinanceVenue } from '../src/venues/binance.venue';
import { VenueHttp } from '../src/venues/venue-http';
import { VenueSimulator } from '../tools/venue-sim';
import { PG_SERVER, benchDatabase, runBench } from './bench-support';

const MINUTE = 60_000;
const DAY = 86_400_000;
const YEAR_MS = 365 * DAY;
const SYMBOL = 'BTC-USDT';
const INSTRUMENT = 'BTCUSDT';
/** Binance spot's published REQUEST_WEIGHT limit, and the service's default budget. */
const BINANCE_LIMIT = 6_000;
const SERVICE_BUDGET = 3_000;
const UNLIMITED_BUDGET = 1_000_000;
const TARGET_S = 30;
const TARGET_RSS_MB = 500;
const RESULT_MARK = 'INGEST_BENCH_RESULT ';

type Phases = Record<string, { ms: number; calls: number }>;

interface ChildResult {
  sinceMs: number;
  expected1m: number;
  syncMs: number;
  summary: { series: Array<{ rows: number; venue_gap_slots: number }>; requests: Record<string, number>; weight_used: Record<string, number>; duration_ms: number };
  candles: Record<string, { rows: number; derived: number }>;
  features: Record<string, { rows: number; rsi14: number }>;
  qualityRecords: number;
  venueGaps: number;
  rss: { beforeOpenMb: number; beforeSyncMb: number; peakSampledMb: number; maxRssMb: number; samples: number };
  phases: Phases;
  fetchInflightMs: number;
  /** Venue requests that failed in this process (each is retried by VenueHttp), by error. */
  fetchErrors: Record<string, number>;
}

interface RunResult extends ChildResult {
  label: string;
  database: string;
  wallMs: number;
  sim: { klines: number; other: number; non200: number; weight: number; statuses: Record<string, number> };
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const secs = (ms: number) => Math.round(ms / 10) / 100;

// ---- child: one sync in a process of its own ---------------------------------------------------

/** Time every call of `proto[method]` into `phases[name(args)]` (inclusive; calls may overlap). */
function timeCalls(phases: Phases, proto: object, method: string, name: (args: unknown[]) => string, around?: { enter(): void; leave(): void }): void {
  const target = proto as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = target[method];
  target[method] = async function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    around?.enter();
    try {
      return await original.apply(this, args);
    } finally {
      around?.leave();
      const p = (phases[name(args)] ??= { ms: 0, calls: 0 });
      p.ms += performance.now() - t;
      p.calls++;
    }
  };
}

async function child(dataDir: string | undefined): Promise<void> {
  const rssBeforeOpen = process.memoryUsage().rss;
  let peak = rssBeforeOpen;
  let samples = 0;
  const sampler = setInterval(() => {
    const rss = process.memoryUsage().rss;
    samples++;
    if (rss > peak) peak = rss;
  }, 100);

  const phases: Phases = {};
  // Wall time with at least one venue request in flight (they overlap: pages are prefetched).
  let inflight = 0;
  let inflightSince = 0;
  let inflightMs = 0;
  const fetching = {
    enter() {
      if (inflight++ === 0) inflightSince = performance.now();
    },
    leave() {
      if (--inflight === 0) inflightMs += performance.now() - inflightSince;
    },
  };
  // Requests that fail on the client side (a timeout, a reset) never reach the simulator's log.
  const fetchErrors: Record<string, number> = {};
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
    try {
      return await realFetch(...args);
    } catch (err) {
      const cause = (err as Error).cause as { code?: string; message?: string } | undefined;
      const key = `${(err as Error).name}: ${(err as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`.slice(0, 160);
      fetchErrors[key] = (fetchErrors[key] ?? 0) + 1;
      throw err;
    }
  };
  timeCalls(phases, BinanceVenue.prototype, 'candles', () => 'fetch: klines page (request + validation), summed over overlapping calls', fetching);
  timeCalls(phases, VenueHttp.prototype, 'json', () => 'fetch: HTTP request + JSON.parse (incl. simulator), summed');
  timeCalls(phases, LiveWriter.prototype, 'candles', () => 'write: LiveWriter.candles (lock + txn + features)');
  timeCalls(phases, CandlesRepository.prototype, 'upsert', () => 'write: candles COPY upsert');
  timeCalls(phases, CandlesRepository.prototype, 'rollUp', () => 'write: rollups 5m..1d');
  timeCalls(phases, FeaturePrecomputeService.prototype, 'technical', (a) => `write: features ${String(a[1])}`);
  timeCalls(phases, FeaturePrecomputeService.prototype, 'funding', () => 'write: funding features');
  timeCalls(phases, QualityService.prototype, 'computeSeries', () => 'quality: computeSeries');

  const services = await openServices(loadConfig({ ...process.env, LOG_LEVEL: 'silent', SEED_DEMO: 'false' }), dataDir ? { dataDir } : {});
  try {
    const rssBeforeSync = process.memoryUsage().rss;
    const now = Date.now();
    const sinceMs = now - YEAR_MS;
    const expected1m = (lastClosedOpen(now, '1m') - bucketStart(sinceMs, '1m')) / MINUTE + 1;
    const t = performance.now();
    const summary = await services.ingest.sync({ symbols: [SYMBOL], exchanges: ['spot'], sinceMs });
    const syncMs = performance.now() - t;
    clearInterval(sampler);
    const peakSampled = Math.max(peak, process.memoryUsage().rss);

    const id = await services.store.series.idOf({ exchange: services.exchanges.spot, symbol: SYMBOL });
    if (id === undefined) throw new Error('the series was not created');
    const db = services.store.db;
    const candles: ChildResult['candles'] = {};
    for (const r of await db.query<{ timeframe: string; rows: number; derived: number }>(
      'SELECT timeframe, count(*)::int AS rows, (count(*) FILTER (WHERE derived))::int AS derived FROM candles WHERE series_id = $1 GROUP BY timeframe',
      [id],
    )) {
      candles[r.timeframe] = { rows: r.rows, derived: r.derived };
    }
    const features: ChildResult['features'] = {};
    for (const r of await db.query<{ timeframe: string; rows: number; rsi14: number }>(
      'SELECT timeframe, count(*)::int AS rows, count(rsi_14)::int AS rsi14 FROM features WHERE series_id = $1 GROUP BY timeframe',
      [id],
    )) {
      features[r.timeframe] = { rows: r.rows, rsi14: r.rsi14 };
    }
    const [{ n: qualityRecords }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM quality WHERE series_id = $1', [id]);
    const [{ n: venueGaps }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM venue_gaps WHERE series_id = $1', [id]);
    const result: ChildResult = {
      sinceMs,
      expected1m,
      syncMs,
      summary,
      candles,
      features,
      qualityRecords,
      venueGaps,
      rss: {
        beforeOpenMb: mb(rssBeforeOpen),
        beforeSyncMb: mb(rssBeforeSync),
        peakSampledMb: mb(peakSampled),
        maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
        samples,
      },
      phases,
      fetchInflightMs: inflightMs,
      fetchErrors,
    };
    process.stdout.write(RESULT_MARK + JSON.stringify(result) + '\n');
  } finally {
    clearInterval(sampler);
    await services.close();
  }
}

// ---- parent: the simulator, the databases, the runs --------------------------------------------

interface RunSpec {
  label: string;
  database: 'postgres' | 'pglite';
  limited: boolean;
  timeoutMs: number;
}

function runChild(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ result: ChildResult | null; wallMs: number; timedOut: boolean; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [__filename, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARK));
      const result = line ? (JSON.parse(line.slice(RESULT_MARK.length)) as ChildResult) : null;
      resolve({ result, wallMs: performance.now() - started, timedOut, stderr, code });
    });
  });
}

async function run(spec: RunSpec): Promise<RunResult | { label: string; failed: string }> {
  const now = Date.now();
  const sim = await VenueSimulator.start({
    binance: [INSTRUMENT],
    hyperliquid: ['BTC'],
    listedAt: now - 400 * DAY,
    ...(spec.limited ? {} : { binanceWeightLimit: Infinity, hyperliquidWeightLimit: Infinity }),
  });
  const db = spec.database === 'postgres' ? await benchDatabase() : null;
  try {
    const env: Record<string, string> = {
      ...sim.env,
      BINANCE_WEIGHT_PER_MINUTE: String(spec.limited ? SERVICE_BUDGET : UNLIMITED_BUDGET),
      HYPERLIQUID_WEIGHT_PER_MINUTE: String(spec.limited ? 600 : UNLIMITED_BUDGET),
      ...(db ? { DATABASE_URL: db.url } : {}),
    };
    const out = await runChild(['--child', spec.database === 'pglite' ? 'memory' : 'postgres'], env, spec.timeoutMs);
    if (out.result === null) {
      const why = out.timedOut ? `did not finish within ${secs(spec.timeoutMs)} s (killed)` : `exited with ${out.code}: ${out.stderr.trim().slice(-2000)}`;
      return { label: spec.label, failed: why };
    }
    const klines = sim.requests.filter((r) => r.venue === 'binance' && r.kind === 'klines');
    const statuses: Record<string, number> = {};
    for (const r of sim.requests) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    return {
      label: spec.label,
      database: spec.database,
      wallMs: out.wallMs,
      ...out.result,
      sim: {
        klines: klines.length,
        other: sim.requests.length - klines.length,
        non200: sim.requests.filter((r) => r.status !== 200).length,
        weight: sim.requests.reduce((n, r) => n + r.weight, 0),
        statuses,
      },
    };
  } finally {
    await db?.drop();
    await sim.close();
  }
}

/** Minutes a sliding one-minute budget needs to let `weight` through when the first request goes at 0: full minutes wait. */
function budgetFloorS(weight: number, perMinute: number): number {
  return Math.floor(Math.max(0, weight - 1) / perMinute) * 60;
}

function checks(r: RunResult): string[] {
  const bad: string[] = [];
  const m1 = r.candles['1m']?.rows ?? 0;
  if (Math.abs(m1 - r.expected1m) > 2) bad.push(`1m rows ${m1}, expected ${r.expected1m}`);
  for (const tf of CANDLE_TIMEFRAMES.slice(1)) {
    const want = Math.floor(r.expected1m / (TIMEFRAME_MS[tf] / MINUTE));
    const got = r.candles[tf]?.rows ?? 0;
    if (got < want - 2 || got > want + 2) bad.push(`${tf} rollups ${got}, expected about ${want}`);
  }
  for (const tf of CANDLE_TIMEFRAMES) {
    const c = r.candles[tf]?.rows ?? 0;
    const f = r.features[tf]?.rows ?? 0;
    if (f !== c) bad.push(`${tf} features ${f} for ${c} candles`);
  }
  if (r.qualityRecords !== CANDLE_TIMEFRAMES.length) bad.push(`quality records ${r.qualityRecords}`);
  if (r.summary.series[0]?.rows !== m1) bad.push(`summary rows ${r.summary.series[0]?.rows} vs ${m1} stored`);
  if (r.summary.requests.binance !== r.sim.klines) {
    const why = Object.entries(r.fetchErrors).map(([e, n]) => `${n} x ${e}`).join(', ');
    bad.push(`summary requests ${r.summary.requests.binance} vs ${r.sim.klines} served${why ? ` (failed on the client and retried: ${why})` : ''}`);
  }
  return bad;
}

function table(rows: Array<Record<string, string | number>>): string {
  const cols = Object.keys(rows[0]);
  return [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${cols.map((c) => r[c]).join(' | ')} |`)].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      runs: { type: 'string', default: '2' },
      'limited-runs': { type: 'string', default: '1' },
      'pglite-runs': { type: 'string', default: '1' },
      'pglite-timeout': { type: 'string', default: '180' },
    },
  });
  if (values.child) return child(values.child === 'memory' ? 'memory' : undefined);

  const specs: RunSpec[] = [];
  for (let i = 1; i <= Number(values.runs); i++) specs.push({ label: `postgres, no limits #${i}`, database: 'postgres', limited: false, timeoutMs: 600_000 });
  for (let i = 1; i <= Number(values['limited-runs']); i++) {
    specs.push({ label: `postgres, published limits #${i}`, database: 'postgres', limited: true, timeoutMs: 900_000 });
  }
  for (let i = 1; i <= Number(values['pglite-runs']); i++) {
    specs.push({ label: `pglite, no limits #${i}`, database: 'pglite', limited: false, timeoutMs: Number(values['pglite-timeout']) * 1000 });
  }
  console.log(`ingest backfill: ${SYMBOL} spot (Binance ${INSTRUMENT}), 1 year of 1m; server ${PG_SERVER}; node ${process.version}`);

  const results: RunResult[] = [];
  const failures: Array<{ label: string; failed: string }> = [];
  for (const spec of specs) {
    console.log(`- ${spec.label} ...`);
    const r = await run(spec);
    if ('failed' in r) {
      failures.push(r);
      console.log(`  ${r.failed}`);
      continue;
    }
    results.push(r);
    const bad = checks(r);
    console.log(`  sync ${secs(r.syncMs)} s, ${r.candles['1m']?.rows ?? 0} 1m rows, ${r.sim.klines} klines requests, peak RSS ${r.rss.maxRssMb} MB${bad.length ? `; CHECKS FAILED: ${bad.join('; ')}` : ''}`);
  }

  if (results.length) {
    console.log('\n### Backfill, one year of 1m spot candles\n');
    console.log(
      table(
        results.map((r) => ({
          run: r.label,
          'sync s': secs(r.syncMs),
          'child process s': secs(r.wallMs),
          '1m rows (expected)': `${r.candles['1m']?.rows ?? 0} (${r.expected1m})`,
          'rollups 5m/15m/1h/4h/1d': CANDLE_TIMEFRAMES.slice(1).map((tf) => r.candles[tf]?.rows ?? 0).join('/'),
          'feature rows 1m..1d': CANDLE_TIMEFRAMES.map((tf) => r.features[tf]?.rows ?? 0).join('/'),
          quality: r.qualityRecords,
          'klines requests (summary)': `${r.sim.klines} (${r.summary.requests.binance})`,
          'other / non-200': `${r.sim.other} / ${r.sim.non200}`,
          'failed on the client (retried)': Object.values(r.fetchErrors).reduce((a, b) => a + b, 0),
          weight: r.sim.weight,
          'peak RSS MB (maxRSS / 100 ms samples)': `${r.rss.maxRssMb} / ${r.rss.peakSampledMb}`,
          'RSS before sync MB': r.rss.beforeSyncMb,
          checks: checks(r).join('; ') || 'ok',
        })),
      ),
    );

    console.log('\n### Where the sync time goes (inclusive times; fetch calls overlap, up to 4 pages in flight)\n');
    const names = [...new Set(results.flatMap((r) => Object.keys(r.phases)))].sort();
    const phaseRows = names.map((n) => {
      const row: Record<string, string | number> = { phase: n };
      for (const r of results) row[r.label] = r.phases[n] ? `${secs(r.phases[n].ms)} s (${r.phases[n].calls})` : '-';
      return row;
    });
    const derivedRow = (name: string, f: (r: RunResult) => number) => {
      const row: Record<string, string | number> = { phase: name };
      for (const r of results) row[r.label] = `${secs(f(r))} s`;
      return row;
    };
    const ph = (r: RunResult, n: string) => r.phases[n]?.ms ?? 0;
    phaseRows.push(derivedRow('fetch: wall time with a request in flight', (r) => r.fetchInflightMs));
    phaseRows.push(
      derivedRow('sync minus writes minus quality (waiting on the venue, lookups)', (r) => r.syncMs - ph(r, 'write: LiveWriter.candles (lock + txn + features)') - ph(r, 'quality: computeSeries')),
    );
    console.log(table(phaseRows));

    const ref = results.find((r) => r.database === 'postgres' && r.label.includes('no limits')) ?? results[0];
    const weight = ref.sim.weight;
    const ownS = ref.syncMs / 1000;
    const within = (perMinute: number) => ({
      budget: perMinute,
      'steady-rate s (weight / budget)': Math.round((weight / perMinute) * 600) / 10,
      'budget floor s (sliding 1-min window, burst allowed)': budgetFloorS(weight, perMinute),
      'estimated backfill s': Math.round(Math.max(ownS, budgetFloorS(weight, perMinute)) * 10) / 10,
      'symbol-years of 1m per minute of budget': Math.round((perMinute / weight) * 100) / 100,
    });
    console.log(`\n### The same backfill within the venue's limits (${ref.sim.klines} klines requests x weight 2 = ${weight} weight)\n`);
    console.log(
      table([
        { limit: "Binance's published REQUEST_WEIGHT 6,000/min", ...within(BINANCE_LIMIT) },
        { limit: 'service default BINANCE_WEIGHT_PER_MINUTE 3,000', ...within(SERVICE_BUDGET) },
      ]),
    );
  }
  for (const f of failures) console.log(`\n${f.label}: ${f.failed}`);

  const pg = results.filter((r) => r.database === 'postgres' && r.label.includes('no limits'));
  const summary = {
    targets: { sync_s: TARGET_S, peak_rss_mb: TARGET_RSS_MB },
    runs: results.map((r) => ({
      label: r.label,
      sync_s: secs(r.syncMs),
      rows_1m: r.candles['1m']?.rows ?? 0,
      expected_1m: r.expected1m,
      candles: r.candles,
      features: r.features,
      quality_records: r.qualityRecords,
      venue_gaps: r.venueGaps,
      klines_requests: r.sim.klines,
      summary_requests: r.summary.requests,
      summary_weight_used: r.summary.weight_used,
      sim_weight: r.sim.weight,
      sim_statuses: r.sim.statuses,
      peak_rss_mb: r.rss.maxRssMb,
      peak_rss_sampled_mb: r.rss.peakSampledMb,
      rss_samples: r.rss.samples,
      phases_s: Object.fromEntries(Object.entries(r.phases).map(([k, v]) => [k, secs(v.ms)])),
      fetch_inflight_s: secs(r.fetchInflightMs),
      failed_fetches: r.fetchErrors,
      checks: checks(r),
    })),
    failures,
    within_limits:
      pg[0] === undefined
        ? null
        : {
            weight: pg[0].sim.weight,
            binance_6000_steady_s: Math.round((pg[0].sim.weight / BINANCE_LIMIT) * 600) / 10,
            service_3000_steady_s: Math.round((pg[0].sim.weight / SERVICE_BUDGET) * 600) / 10,
            binance_6000_floor_s: budgetFloorS(pg[0].sim.weight, BINANCE_LIMIT),
            service_3000_floor_s: budgetFloorS(pg[0].sim.weight, SERVICE_BUDGET),
          },
    met: pg.length > 0 && pg.every((r) => r.syncMs <= TARGET_S * 1000 && r.rss.maxRssMb < TARGET_RSS_MB && checks(r).length === 0),
  };
  console.log('\n' + JSON.stringify(summary, null, 2));
}

runBench(main);
