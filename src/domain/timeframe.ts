/** Candle timeframes and their arithmetic. Buckets are aligned to the Unix epoch (UTC). */

export const CANDLE_TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type CandleTimeframe = (typeof CANDLE_TIMEFRAMES)[number];

/** Features are served on every candle timeframe and on `funding` (one row per funding hour). */
export const FEATURE_TIMEFRAMES = [...CANDLE_TIMEFRAMES, 'funding'] as const;
export type FeatureTimeframe = (typeof FEATURE_TIMEFRAMES)[number];

export const TIMEFRAME_MS: Record<CandleTimeframe, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
};

/** Funding settles every hour: one funding row, and one `funding` feature row, per hour. */
export const FUNDING_INTERVAL_MS = 3_600_000;

/** Open time of the bucket of `tf` that contains `ms`. */
export function bucketStart(ms: number, tf: CandleTimeframe): number {
  const p = TIMEFRAME_MS[tf];
  return Math.floor(ms / p) * p;
}

export function isAligned(ms: number, tf: CandleTimeframe): boolean {
  return ms % TIMEFRAME_MS[tf] === 0;
}

/** The next finer timeframe, the one a rollup into `tf` reads from (null for 1m). */
export function finerTimeframe(tf: CandleTimeframe): CandleTimeframe | null {
  const i = CANDLE_TIMEFRAMES.indexOf(tf);
  return i > 0 ? CANDLE_TIMEFRAMES[i - 1] : null;
}

/** Open time of the last candle of `tf` that has closed at `nowMs`. */
export function lastClosedOpen(nowMs: number, tf: CandleTimeframe): number {
  return bucketStart(nowMs, tf) - TIMEFRAME_MS[tf];
}

/**
 * The end of a read of `tf` clipped to closed periods (only closed candles, and the features
 * computed on them, are served); the funding timeframe has no open period to hide.
 */
export function closedEnd(endMs: number, tf: FeatureTimeframe, nowMs: number): number {
  return tf === 'funding' ? endMs : Math.min(endMs, lastClosedOpen(nowMs, tf));
}

/** A half-open range of open times [start, end), ms. */
export type Span = [number, number];

/** Ascending slot open times `periodMs` apart joined into runs: [t, t + p) spans, adjacent ones merged. */
export function slotRuns(slots: Iterable<number>, periodMs: number): Span[] {
  const runs: Span[] = [];
  for (const t of slots) {
    const last = runs[runs.length - 1];
    if (last && last[1] === t) last[1] = t + periodMs;
    else runs.push([t, t + periodMs]);
  }
  return runs;
}

/** Spans sorted by start, adjacent ones joined. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const [s, e] of spans) {
    const last = out[out.length - 1];
    if (last && last[1] === s) last[1] = e;
    else out.push([s, e]);
  }
  return out;
}

/** The buckets of one coarser timeframe a rollup recomputes: open times in [startMs, endMs). */
export interface RollupSpan {
  timeframe: CandleTimeframe;
  startMs: number;
  endMs: number;
}

/**
 * The buckets of every timeframe coarser than `from` that contain [startMs, endMs] (each
 * timeframe divides the next, so a level's buckets contain those of the finer one), but for the
 * timeframes whose first such bucket is still open at `nowMs` (then none of them has closed).
 */
export function rollupSpans(from: CandleTimeframe, startMs: number, endMs: number, nowMs: number): RollupSpan[] {
  const out: RollupSpan[] = [];
  for (const timeframe of CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(from) + 1)) {
    const p = TIMEFRAME_MS[timeframe];
    const start = bucketStart(startMs, timeframe);
    if (start + p <= nowMs) out.push({ timeframe, startMs: start, endMs: bucketStart(endMs, timeframe) + p });
  }
  return out;
}
