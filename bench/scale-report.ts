/**
 * What the scale benchmark records, and its two renderings: markdown tables (stdout and
 * summary.md) and the PNG charts (read latency, import throughput, bytes per row, memory).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { COLORS, compact, figureSvg, pngOf, type Line, type Panel } from './scale-charts';

export const ROUTES = ['ohlcv', 'multi-asset', 'features'] as const;
export const POSITIONS = ['start', 'middle', 'end'] as const;
export type Route = (typeof ROUTES)[number];
export type Position = (typeof POSITIONS)[number];

/** One `mds import candles` of one symbol's history. */
export interface ImportRecord {
  symbol: string;
  rows: number;
  /** 1m candles stored after this import. */
  cumulativeRows: number;
  /** The command's own `duration_ms.import` (the COPY) and `duration_ms.rollup_and_features`. */
  importMs: number;
  afterMs: number;
  /** The process's wall time, start-up included. */
  wallMs: number;
  importRowsPerS: number;
  wholeRowsPerS: number;
  peakRssMb: number;
  cpuS: number;
}

export interface ReadFigure {
  route: Route;
  position: Position;
  /** Symbols in one request (multi-asset: up to 30), and how many the requests rotate over. */
  symbolsPerRequest: number;
  rotation: number;
  /** Rows and bytes of the first answer. */
  rows: number;
  bytes: number;
  warmup: number;
  /** Requests timed (answered 200), of those asked (fewer when the time budget ran out). */
  requests: number;
  asked: number;
  /** A first answer other than 200, or how many later answers were not 200. */
  error: string | null;
  /** Null when no request answered 200. */
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface TableSize {
  /** pg_total_relation_size summed over the partitions (heap, indexes, TOAST). */
  bytes: number;
  rows: number;
  bytesPerRow: number;
  /** Leaf partitions (1: not partitioned). */
  partitions: number;
}

export interface Checkpoint {
  target: number;
  rows1m: number;
  symbols: number;
  measuredAt: string;
  /** The imports since the previous checkpoint: medians and the highest peak. */
  importsSince: { count: number; importRowsPerS: number; wholeRowsPerS: number; peakRssMb: number };
  quality: { ms: number; records: number };
  reads: ReadFigure[];
  gateway: { rssBeforeMb: number; rssAfterMb: number; peakMb: number };
  /** bytesPer1mCandle: what the database grew by since it was empty (migrated), per 1m candle stored. */
  disk: { candles: TableSize; features: TableSize; databaseBytes: number; bytesPer1mCandle: number; candlesByTimeframe: Record<string, number> };
  /** How long the measurement itself took (gateway start to the last size query). */
  measureMs: number;
}

export interface ScaleResults {
  startedAt: string;
  finishedAt: string | null;
  machine: { cpus: number; memoryGb: number; loadAtStart: number[]; loadAtEnd: number[] | null; postgres: Record<string, string>; commit: string };
  options: {
    symbols: number;
    days: number;
    checkpoints: number[];
    requests: number;
    multiRequests: number;
    multiSymbols: number;
    budgetS: number;
    historyStart: string;
    historyEnd: string;
  };
  database: string;
  /** pg_database_size right after the migrations. */
  emptyDatabaseBytes: number;
  imports: ImportRecord[];
  checkpoints: Checkpoint[];
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const mb = (bytes: number) => `${int(bytes / 2 ** 20)} MB`;
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');

/** The figures as markdown: reads, imports, storage and memory, one column or row per checkpoint. */
export function markdown(r: ScaleResults): string {
  const cps = r.checkpoints;
  const out: string[] = [];
  const m = r.machine;
  out.push(`Scale benchmark: ${r.options.symbols} symbols x ${r.options.days} days of 1m candles, ${r.startedAt} to ${r.finishedAt ?? '(running)'}, commit ${m.commit}`);
  out.push(`Machine: ${m.cpus} cores, ${m.memoryGb} GB; load average at start ${m.loadAtStart.join(' ')}; PostgreSQL ${Object.entries(m.postgres).map(([k, v]) => `${k}=${v}`).join(', ')}`);
  if (cps.length === 0) return out.join('\n') + '\n';
  const first = cps[0];
  const last = cps[cps.length - 1];
  out.push('', `### Reads: p50 / p99 ms of sequential requests (${r.options.requests} per position, ${r.options.multiRequests} for multi-asset)`, '');
  out.push(`| route | position | ${cps.map((c) => `${compact(c.rows1m)} rows`).join(' | ')} | p50 last / first (goal <= 1.2x) |`);
  out.push(`|---|---|${cps.map(() => '---|').join('')}---|`);
  const problems: string[] = [];
  for (const route of ROUTES) {
    for (const position of POSITIONS) {
      const f = cps.map((c) => c.reads.find((x) => x.route === route && x.position === position));
      const widths = [...new Set(f.map((x) => x?.symbolsPerRequest))];
      const what = route === 'ohlcv' ? '1 x 10k' : route === 'features' ? '15 x 10k' : `${widths.join('/')} symbols x 10k`;
      const cell = (x: ReadFigure | undefined, i: number) => {
        if (!x) return '-';
        if (x.error || x.requests < x.asked) problems.push(`${route} at ${position}, ${compact(cps[i].rows1m)}: ${x.requests} of ${x.asked} requests timed${x.error ? `; ${x.error}` : ''}`);
        const flag = x.error || x.requests < x.asked ? ' (!)' : '';
        const width = widths.length > 1 ? ` (${x.symbolsPerRequest} sym)` : '';
        return x.p50Ms === null || x.p99Ms === null ? `failed${flag}` : `${ms(x.p50Ms)} / ${ms(x.p99Ms)}${width}${flag}`;
      };
      const a = f[0];
      const b = f[f.length - 1];
      const comparable = a?.p50Ms && b?.p50Ms && a.symbolsPerRequest === b.symbolsPerRequest;
      out.push(`| ${route} ${what} | ${position} | ${f.map(cell).join(' | ')} | ${comparable ? ratio(b.p50Ms!, a.p50Ms!) : 'n/a'} |`);
    }
  }
  if (problems.length) out.push('', '(!) ' + problems.join('; ') + '.');
  const fewer = cps.filter((c) => c.reads.some((x) => x.route === 'multi-asset' && x.symbolsPerRequest < r.options.multiSymbols));
  if (fewer.length) {
    const at = fewer.map((c) => `${c.reads.find((x) => x.route === 'multi-asset')!.symbolsPerRequest} at ${compact(c.rows1m)}`).join(', ');
    out.push('', `Multi-asset used every imported symbol where fewer than ${r.options.multiSymbols} were imported (${at}): its ratio compares like with like only at equal widths.`);
  }
  out.push('', '### Imports: `mds import candles` of one symbol each (rows/s of 1m candles; medians over the imports since the previous checkpoint)', '');
  out.push('| checkpoint | symbols | 1m rows | imports | import step rows/s | whole command rows/s | peak RSS (max) |');
  out.push('|---|---|---|---|---|---|---|');
  for (const c of cps) {
    const s = c.importsSince;
    out.push(`| ${compact(c.target)} | ${c.symbols} | ${int(c.rows1m)} | ${s.count} | ${int(s.importRowsPerS)} | ${int(s.wholeRowsPerS)} | ${s.peakRssMb} MB |`);
  }
  out.push('', `Import step last / first segment: ${ratio(last.importsSince.importRowsPerS, first.importsSince.importRowsPerS)}; whole command: ${ratio(last.importsSince.wholeRowsPerS, first.importsSince.wholeRowsPerS)} (goal: not falling).`);
  out.push('', '### Storage, quality job and memory', '');
  out.push('| checkpoint | candles (all timeframes) | bytes/row | features | bytes/row | database | database growth per 1m candle | quality job | gateway RSS before / after reads (peak) |');
  out.push('|---|---|---|---|---|---|---|---|---|');
  for (const c of cps) {
    const d = c.disk;
    out.push(
      `| ${compact(c.target)} | ${int(d.candles.rows)} rows, ${mb(d.candles.bytes)}${d.candles.partitions > 1 ? ` in ${d.candles.partitions} partitions` : ''} | ${d.candles.bytesPerRow.toFixed(1)} | ${int(d.features.rows)} rows, ${mb(d.features.bytes)}${d.features.partitions > 1 ? ` in ${d.features.partitions} partitions` : ''} | ${d.features.bytesPerRow.toFixed(1)} | ${mb(d.databaseBytes)} | ${d.bytesPer1mCandle.toFixed(1)} | ${(c.quality.ms / 1000).toFixed(2)} s, ${c.quality.records} records | ${c.gateway.rssBeforeMb} / ${c.gateway.rssAfterMb} MB (${c.gateway.peakMb} MB) |`,
    );
  }
  return out.join('\n') + '\n';
}

/** The PNG (and SVG) charts into `dir`; returns the file names written. */
export function writeCharts(r: ScaleResults, dir: string): string[] {
  const cps = r.checkpoints;
  const subtitle = `${r.options.symbols} symbols x ${r.options.days} days of 1m candles; ${r.machine.cpus} cores, ${r.machine.memoryGb} GB; ${r.startedAt.slice(0, 10)}, commit ${r.machine.commit}`;
  const rowsAxis = '1m candles stored';
  const readPanels: Panel[] = ROUTES.map((route) => {
    const lines: Line[] = [];
    const figures = (position: Position) => cps.flatMap((c) => c.reads.filter((x) => x.route === route && x.position === position).map((x) => ({ rows: c.rows1m, x })));
    POSITIONS.forEach((position, i) => {
      const f = figures(position);
      // A position that failed has no point (null is not drawn).
      lines.push({ label: `${position} p50`, color: COLORS[i], points: f.flatMap(({ rows, x }) => (x.p50Ms === null ? [] : [[rows, x.p50Ms] as const])) });
      lines.push({ label: `${position} p99`, color: COLORS[i], dashed: true, points: f.flatMap(({ rows, x }) => (x.p99Ms === null ? [] : [[rows, x.p99Ms] as const])) });
    });
    const widths = [...new Set(figures('start').map(({ x }) => x.symbolsPerRequest))].join(' / ');
    const title =
      route === 'ohlcv' ? '/v1/ohlcv 1m, 10,000 rows' : route === 'features' ? '/v1/features 15 x 10,000 rows' : `/v1/multi-asset close, ${widths} symbols x 10,000`;
    return { title, xLabel: rowsAxis, yLabel: 'ms', xLog: true, lines };
  });
  const imports = r.imports;
  const marks = cps.map((c) => c.rows1m);
  const importPanels: Panel[] = [
    {
      title: 'mds import candles, one symbol each',
      xLabel: '1m candles stored after the import',
      yLabel: 'rows per second',
      marks,
      lines: [
        { label: 'import step (COPY)', color: COLORS[0], points: imports.map((i) => [i.cumulativeRows, i.importRowsPerS] as const) },
        { label: 'whole command', color: COLORS[1], points: imports.map((i) => [i.cumulativeRows, i.wholeRowsPerS] as const) },
      ],
    },
  ];
  const bytesPanels: Panel[] = [
    {
      title: 'Disk bytes per row',
      xLabel: rowsAxis,
      yLabel: 'bytes',
      xLog: true,
      lines: [
        { label: 'candles (per row)', color: COLORS[0], points: cps.map((c) => [c.rows1m, c.disk.candles.bytesPerRow] as const) },
        { label: 'features (per row)', color: COLORS[1], points: cps.map((c) => [c.rows1m, c.disk.features.bytesPerRow] as const) },
        { label: 'database growth per 1m candle', color: COLORS[2], points: cps.map((c) => [c.rows1m, c.disk.bytesPer1mCandle] as const) },
      ],
    },
  ];
  const memoryPanels: Panel[] = [
    {
      title: 'Peak RSS of each import',
      xLabel: '1m candles stored after the import',
      yLabel: 'MB',
      marks,
      lines: [{ label: 'mds import candles', color: COLORS[0], points: imports.map((i) => [i.cumulativeRows, i.peakRssMb] as const) }],
    },
    {
      title: 'Gateway RSS at each checkpoint',
      xLabel: rowsAxis,
      yLabel: 'MB',
      xLog: true,
      lines: [
        { label: 'before the reads', color: COLORS[0], points: cps.map((c) => [c.rows1m, c.gateway.rssBeforeMb] as const) },
        { label: 'after the reads', color: COLORS[1], points: cps.map((c) => [c.rows1m, c.gateway.rssAfterMb] as const) },
        { label: 'peak (VmHWM)', color: COLORS[2], dashed: true, points: cps.map((c) => [c.rows1m, c.gateway.peakMb] as const) },
      ],
    },
  ];
  const figures: Array<[string, string, Panel[]]> = [
    ['read-latency', 'Read latency against history size (p50 solid, p99 dashed)', readPanels],
    ['import-throughput', 'Import throughput against history size (dashed: checkpoints)', importPanels],
    ['bytes-per-row', 'Storage per row against history size', bytesPanels],
    ['memory', 'Memory against history size', memoryPanels],
  ];
  const written: string[] = [];
  for (const [name, title, panels] of figures) {
    const svg = figureSvg(title, subtitle, panels);
    writeFileSync(path.join(dir, `${name}.svg`), svg);
    writeFileSync(path.join(dir, `${name}.png`), pngOf(svg));
    written.push(`${name}.png`);
  }
  return written;
}
