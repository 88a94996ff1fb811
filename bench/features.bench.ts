/**
 * Features and quality benchmark, on a PostgreSQL server: the technical features of a year of 1m
 * candles computed whole (time, peak RSS) and then incrementally after 60 appended; GET
 * /v1/features with all 15 features against /v1/ohlcv, 10,000 rows each; the quality job over the
 * demo data. Options: bench/README.md.
 *   npm run bench:features -- [--requests 100]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { openServices } from '../src/composition';
import { BENCH_USER, ROOT, benchDatabase, gatewayEnv, runBench, startProcess } from './bench-support';
import { sequentialLatency } from './latency';

const MINUTE = 60_000;
const ROWS = 525_600;
const T0 = Date.UTC(2025, 0, 1);
const FEATURES = 'rsi_9,rsi_14,rsi_21,macd,macd_signal,macd_histogram,bb_upper,bb_middle,bb_lower,bb_width,bb_pct,atr_14,vwap_20,twap_20,price_vs_vwap_20';

function csv(from: number, to: number): string {
  const lines = ['time,open,high,low,close,volume'];
  let p = 50_000;
  for (let i = 0; i < to; i++) {
    const c = p * (1 + Math.sin(i * 0.7) * 0.0008 + Math.cos(i * 0.013) * 0.0002);
    if (i >= from) {
      lines.push(`${new Date(T0 + i * MINUTE).toISOString()},${p.toFixed(2)},${(Math.max(p, c) * 1.0004).toFixed(2)},${(Math.min(p, c) * 0.9996).toFixed(2)},${c.toFixed(2)},${((i % 17) + 0.25).toFixed(4)}`);
    }
    p = c;
  }
  return lines.join('\n') + '\n';
}

/** Child mode: one computation in a fresh process, printing its time and peak RSS. */
async function child(mode: string, url: string): Promise<void> {
  const services = await openServices(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }), { migrate: false });
  const [{ id }] = await services.store.series.ofSymbol('BENCH-USDT');
  const t = performance.now();
  const rows = await services.featurePrecompute.technical(id, '1m', mode === 'full' ? null : T0 + ROWS * MINUTE);
  const ms = performance.now() - t;
  await services.close();
  process.stdout.write(JSON.stringify({ rows, ms: Math.round(ms), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }) + '\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '100' }, child: { type: 'string' }, url: { type: 'string' } } });
  if (values.child) return child(values.child, values.url!);
  const db = await benchDatabase();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-fbench-'));
  const env = { ...gatewayEnv(db.url), LOG_LEVEL: 'silent' };
  try {
    const services = await openServices(loadConfig(env));
    writeFileSync(path.join(dir, 'year.csv'), csv(0, ROWS));
    writeFileSync(path.join(dir, 'append.csv'), csv(ROWS, ROWS + 60));
    await services.importer.importCandles({ exchange: 'perp', symbol: 'BENCH-USDT' }, '1m', path.join(dir, 'year.csv'));
    const run = (mode: string) => {
      const r = spawnSync(process.execPath, [__filename, '--child', mode, '--url', db.url], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      return JSON.parse(r.stdout) as { rows: number; ms: number; maxRssMb: number };
    };
    const full = run('full');
    await services.importer.importCandles({ exchange: 'perp', symbol: 'BENCH-USDT' }, '1m', path.join(dir, 'append.csv'));
    const inc = run('incremental');
    console.log('Feature computation, 1m series');
    console.table([
      { run: `full (${ROWS.toLocaleString('en-US')} candles)`, 'rows written': full.rows, ms: full.ms, 'peak RSS MB': full.maxRssMb },
      { run: 'incremental (60 appended)', 'rows written': inc.rows, ms: inc.ms, 'peak RSS MB': inc.maxRssMb },
    ]);

    const { key } = await services.keys.create({ userId: BENCH_USER, tier: 'scale', label: null });
    await services.close();
    const gateway = await startProcess('src/server.js', { ...env, QUALITY_INTERVAL: '24h' }, '/health');
    try {
      const start = new Date(T0 + 100_000 * MINUTE).toISOString();
      const end = new Date(T0 + 109_999 * MINUTE).toISOString();
      const auth = { 'X-API-Key': key };
      const ohlcv = `${gateway.url}/v1/ohlcv?symbol=BENCH-USDT&exchange=perp&timeframe=1m&start=${start}&end=${end}&limit=10000`;
      const features = `${gateway.url}/v1/features?symbol=BENCH-USDT&exchange=perp&timeframe=1m&features=${FEATURES}&start=${start}&end=${end}`;
      for (let i = 0; i < 10; i++) {
        await sequentialLatency(ohlcv, 1, auth);
        await sequentialLatency(features, 1, auth);
      }
      const n = Number(values.requests);
      const rows: Array<Record<string, number>> = [];
      for (let round = 1; round <= 2; round++) {
        const o = await sequentialLatency(ohlcv, n, auth);
        const f = await sequentialLatency(features, n, auth);
        rows.push({ round, 'ohlcv p50 ms': o.p50, 'features p50 ms': f.p50, 'features / ohlcv': Math.round((f.p50 / o.p50) * 100) / 100, 'ohlcv p99': o.p99, 'features p99': f.p99 });
      }
      console.log(`10,000 rows: /v1/features (15 features) vs /v1/ohlcv, ${n} sequential requests each`);
      console.table(rows);
    } finally {
      await gateway.stop();
    }

    const demo = await benchDatabase();
    try {
      const denv = { ...env, DATABASE_URL: demo.url };
      execFileSync(process.execPath, [path.join(ROOT, 'bin', 'mds.js'), 'seed-demo'], { env: { ...process.env, ...denv }, stdio: 'ignore' });
      const s = await openServices(loadConfig(denv));
      const t = performance.now();
      const records = await s.quality.computeAll(Date.now());
      const ms = performance.now() - t;
      await s.close();
      console.log('Quality job over the demo data set (10 series x 6 timeframes)');
      console.table([{ records, ms: Math.round(ms) }]);
    } finally {
      await demo.drop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

runBench(main);
