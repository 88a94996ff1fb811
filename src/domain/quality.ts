/**
 * Data Quality Score of one series and timeframe, pure. Window: the 7 days ending at
 * computedAt. DQS = 0.30 gap_rate + 0.25 anomaly + 0.25 consistency + 0.20 freshness, from
 * unrounded components.
 */
import { formatFloat } from './decimal';
import { DAY_MS, MINUTE_MS, formatTimestamp } from './time';
import { TIMEFRAME_MS, slotRuns, type CandleTimeframe, type Span } from './timeframe';

export const QUALITY_WINDOW_MS = 7 * DAY_MS;

/** Freshness SLA: how old the latest candle's close may be. */
export const FRESHNESS_SLA_MS: Record<CandleTimeframe, number> = {
  '1m': 5 * MINUTE_MS,
  '5m': 15 * MINUTE_MS,
  '15m': 30 * MINUTE_MS,
  '1h': 90 * MINUTE_MS,
  '4h': 6 * 60 * MINUTE_MS,
  '1d': 26 * 60 * MINUTE_MS,
};

export interface QualityInput {
  timeframe: CandleTimeframe;
  computedAt: number;
  /** Candles opening in the window, ascending: open time and close. */
  candles: ReadonlyArray<{ time: number; close: number }>;
  /** Open time of the series' first and latest candle at this timeframe (all history). */
  firstOpen: number | null;
  latestOpen: number | null;
  /** Mean |perp - spot| / spot over shared timestamps in the window; null on one venue only. */
  meanBasis: number | null;
}

export interface QualityResult {
  gapRate: number;
  anomaly: number;
  consistency: number;
  freshness: number;
  dqs: number;
  expected: number;
  present: number;
  /** Half-open [start, end) ranges of missing candle open times. */
  missing: Span[];
}

export const DQS_BANDS = [
  { min: 0.95, name: 'production-ready' },
  { min: 0.85, name: 'minor issues' },
  { min: 0.7, name: 'data quality concerns' },
  { min: -Infinity, name: 'significant issues' },
] as const;

export function bandOf(dqs: number): string {
  return DQS_BANDS.find((b) => dqs >= b.min)!.name;
}

/** 1 below 0.5% mean basis, falling linearly to 0 at 2%. */
export function consistencyScore(meanBasis: number | null): number {
  if (meanBasis === null) return 1;
  return Math.min(1, Math.max(0, 1 - (meanBasis - 0.005) / 0.015));
}

export function computeQuality(q: QualityInput): QualityResult {
  const p = TIMEFRAME_MS[q.timeframe];
  const windowStart = q.computedAt - QUALITY_WINDOW_MS;
  // Slots: opens aligned to the timeframe whose period closed inside the window, from the
  // series' first candle on (a market listed mid-window is not penalised for before it).
  let from = Math.ceil(windowStart / p) * p;
  if (q.firstOpen !== null) from = Math.max(from, q.firstOpen);
  const lastSlot = Math.floor(q.computedAt / p) * p - p;
  const present = new Set(q.candles.map((c) => c.time));
  let expected = 0;
  const absent: number[] = [];
  for (let t = from; t <= lastSlot; t += p) {
    expected++;
    if (!present.has(t)) absent.push(t);
  }
  const have = expected - absent.length;
  const missing = slotRuns(absent, p);
  const gapRate = expected === 0 ? 1 : have / expected;

  const returns: number[] = [];
  for (let i = 1; i < q.candles.length; i++) {
    const a = q.candles[i - 1];
    const b = q.candles[i];
    if (b.time - a.time === p && a.close > 0 && b.close > 0) returns.push(Math.log(b.close / a.close));
  }
  let anomaly = 1;
  if (returns.length > 0) {
    const mean = returns.reduce((x, y) => x + y, 0) / returns.length;
    const sd = Math.sqrt(returns.reduce((x, y) => x + (y - mean) ** 2, 0) / returns.length);
    if (sd > 0) anomaly = 1 - returns.filter((r) => Math.abs((r - mean) / sd) > 4).length / returns.length;
  }

  const consistency = consistencyScore(q.meanBasis);
  const freshness = q.latestOpen !== null && q.computedAt - (q.latestOpen + p) <= FRESHNESS_SLA_MS[q.timeframe] ? 1 : 0;
  const dqs = 0.3 * gapRate + 0.25 * anomaly + 0.25 * consistency + 0.2 * freshness;
  return { gapRate, anomaly, consistency, freshness, dqs, expected, present: have, missing };
}

/** A stored score: the job's result for one series and timeframe, and when it ran. */
export type StoredQuality = QualityResult & { timeframe: CandleTimeframe; computedAt: number };

export interface TimeInterval {
  start: string;
  end: string;
}

/** A quality record as served: the score and its components with 4 decimals, its band, the holes. */
export interface QualityRecord {
  timeframe: CandleTimeframe;
  dqs: string;
  band: string;
  computedAt: string;
  components: { gapRateScore: string; anomalyScore: string; consistencyScore: string; freshnessScore: string };
  expectedCandles: number;
  presentCandles: number;
  /** Runs of missing candles: open times in [start, end). */
  missingIntervals: TimeInterval[];
}

const f4 = (x: number) => formatFloat(x, 4)!;

export function qualityRecord(q: StoredQuality): QualityRecord {
  const dqs = f4(q.dqs);
  return {
    timeframe: q.timeframe,
    dqs,
    // The band of the served (rounded) score, so the two never disagree at a boundary.
    band: bandOf(Number(dqs)),
    computedAt: formatTimestamp(q.computedAt),
    components: {
      gapRateScore: f4(q.gapRate),
      anomalyScore: f4(q.anomaly),
      consistencyScore: f4(q.consistency),
      freshnessScore: f4(q.freshness),
    },
    expectedCandles: q.expected,
    presentCandles: q.present,
    missingIntervals: q.missing.map(([s, e]) => ({ start: formatTimestamp(s), end: formatTimestamp(e) })),
  };
}
