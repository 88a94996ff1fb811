/**
 * The scale benchmark's measurements against a running gateway: the quality job's first run
 * (from /metrics) and the 10,000-row reads at the start, middle and end of the history.
 */
import { TECHNICAL_FEATURES } from '../src/domain/feature-catalogue';
import { fetchOnce, oneConnection, summarize, type RequestSpec } from './latency';
import { POSITIONS, ROUTES, type Position, type ReadFigure, type Route } from './scale-report';

const MINUTE = 60_000;
const PAGE = 10_000;

/**
 * The duration of the gateway's first quality run (the one at start, over every series), ms,
 * once `/metrics` counts it; a failed run throws.
 */
export async function qualityJobMs(gatewayUrl: string, timeoutMs = 3_600_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const sample = (text: string, name: string, labels: string[]) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`) && labels.every((x) => l.includes(x)))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  while (Date.now() < deadline) {
    const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
    if (sample(text, 'mds_job_runs_total', ['job="quality"', 'outcome="error"']) > 0) throw new Error('the quality job failed (see the gateway log on stderr)');
    if (sample(text, 'mds_job_runs_total', ['job="quality"', 'outcome="ok"']) >= 1) {
      return sample(text, 'mds_job_duration_seconds_sum', ['job="quality"']) * 1000;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the quality job did not finish within the timeout');
}

export interface ReadSetup {
  url: string;
  key: string;
  /** The imported symbols, in import order. */
  symbols: string[];
  /** The history: `minutes` 1m candles from `startMs`, the same for every symbol. */
  startMs: number;
  minutes: number;
  requests: number;
  multiRequests: number;
  /** Symbols per multi-asset request (fewer while fewer are imported). */
  multiSymbols: number;
  /** Seconds one route at one position may take, warm-up included (at least 3 measured requests). */
  budgetS: number;
  log(msg: string): void;
}

/** The first minute of a 10,000-minute window at each position of the history. */
function windowStart(s: ReadSetup, position: Position): number {
  const spare = Math.max(0, s.minutes - PAGE);
  const offset = position === 'start' ? 0 : position === 'middle' ? Math.floor(spare / 2) : spare;
  return s.startMs + offset * MINUTE;
}

/** Request number `k` of a route at a position: the symbols rotate with k. */
function request(s: ReadSetup, route: Route, position: Position, k: number): RequestSpec {
  const start = new Date(windowStart(s, position)).toISOString();
  const headers = { 'X-API-Key': s.key };
  const n = s.symbols.length;
  const one = s.symbols[k % n];
  const common = `exchange=perp&timeframe=1m&start=${start}`;
  if (route === 'ohlcv') return { url: `${s.url}/v1/ohlcv?symbol=${one}&${common}&limit=${PAGE}`, headers };
  if (route === 'features') return { url: `${s.url}/v1/features?symbol=${one}&${common}&features=${TECHNICAL_FEATURES.join(',')}`, headers };
  const width = Math.min(s.multiSymbols, n);
  const several = Array.from({ length: width }, (_, j) => s.symbols[(k * width + j) % n]);
  return { url: `${s.url}/v1/multi-asset?symbols=${several.join(',')}&${common}&field=close`, headers };
}

/**
 * The first answer of a route and position checked: the full page, every symbol present. An
 * answer other than 200 (a statement timeout gives 503) is returned as the error, not thrown:
 * it is a finding of the run.
 */
async function check(s: ReadSetup, route: Route, position: Position, spec: RequestSpec): Promise<{ rows: number; bytes: number; error: string | null }> {
  const r = await fetchOnce(spec);
  if (r.status !== 200) return { rows: 0, bytes: 0, error: `status ${r.status}: ${r.body.slice(0, 200)}` };
  const body = JSON.parse(r.body) as { count: number; data: Array<Record<string, unknown>> };
  const expected = Math.min(PAGE, s.minutes);
  if (body.count !== expected) throw new Error(`${route} at ${position}: ${body.count} rows, expected ${expected} (${spec.url})`);
  if (route === 'multi-asset') {
    const width = Math.min(s.multiSymbols, s.symbols.length);
    if (Object.keys(body.data[0]).length !== width + 1) throw new Error(`multi-asset at ${position}: a row without every symbol`);
  }
  return { rows: body.count, bytes: r.bytes, error: null };
}

/**
 * Every route at every position: the first answer checked, a warm-up (one request per symbol
 * of the rotation, at least 10; multi-asset 5), then the measured requests in sequence on one
 * keep-alive connection, the rotation going on. Within the time budget: the warm-up stops at
 * half of it, the measured requests once it is spent (after at least 3). A first answer other
 * than 200 is recorded and the position skipped; later ones are counted, not timed.
 */
export async function measureReads(s: ReadSetup): Promise<ReadFigure[]> {
  const figures: ReadFigure[] = [];
  for (const route of ROUTES) {
    for (const position of POSITIONS) {
      const multi = route === 'multi-asset';
      const width = multi ? Math.min(s.multiSymbols, s.symbols.length) : 1;
      const asked = multi ? s.multiRequests : s.requests;
      const t0 = performance.now();
      const spent = () => (performance.now() - t0) / 1000;
      const first = await check(s, route, position, request(s, route, position, 0));
      const samples: number[] = [];
      const statuses: number[] = [];
      let warmup = 0;
      if (first.error === null) {
        const agent = oneConnection();
        try {
          let k = 0;
          const plannedWarmup = multi ? 5 : Math.max(10, s.symbols.length);
          for (; warmup < plannedWarmup && spent() < s.budgetS / 2; warmup++) await fetchOnce(request(s, route, position, k++), agent);
          const done = () => samples.length + statuses.length;
          while (done() < asked && (spent() < s.budgetS || done() < 3)) {
            const t = performance.now();
            const r = await fetchOnce(request(s, route, position, k++), agent);
            if (r.status === 200) samples.push(performance.now() - t);
            else statuses.push(r.status);
          }
        } finally {
          agent.destroy();
        }
      }
      const { p50, p99 } = samples.length ? summarize(samples) : { p50: null, p99: null };
      const error = first.error ?? (statuses.length ? `${statuses.length} answers not 200 (${[...new Set(statuses)].join(', ')})` : null);
      figures.push({
        route,
        position,
        symbolsPerRequest: width,
        rotation: s.symbols.length,
        rows: first.rows,
        bytes: first.bytes,
        warmup,
        requests: samples.length,
        asked,
        error,
        p50Ms: p50,
        p99Ms: p99,
      });
      s.log(
        `  ${route}${multi ? ` (${width} symbol${width === 1 ? '' : 's'})` : ''} at ${position}: p50 ${p50?.toFixed(1) ?? '-'} ms, p99 ${p99?.toFixed(1) ?? '-'} ms ` +
          `(${samples.length} of ${asked} requests, ${(first.bytes / 1e6).toFixed(2)} MB each${error ? `; ${error}` : ''})`,
      );
    }
  }
  return figures;
}
