/**
 * The API's shapes (strings, ISO times) turned into chart points (numbers, UTC seconds), and
 * the merging of pages. Pure: no DOM, no chart.
 */
import type { UTCTimestamp } from 'lightweight-charts';
import type { Candle } from '../../src/domain/market';

export const TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];
const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const TIMEFRAME_MS: Record<Timeframe, number> = { '1m': MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '1h': HOUR, '4h': 4 * HOUR, '1d': 24 * HOUR };
export const isTimeframe = (s: string): s is Timeframe => (TIMEFRAMES as readonly string[]).includes(s);

/** The features the panes draw, in the order the query asks for them. */
export const FEATURES = ['bb_upper', 'bb_middle', 'bb_lower', 'rsi_14', 'macd', 'macd_signal', 'macd_histogram'] as const;
export type Feature = (typeof FEATURES)[number];

export const seconds = (iso: string) => (Date.parse(iso) / 1000) as UTCTimestamp;
/** An instant as the API reads it (ISO 8601, UTC). */
export const isoOf = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** A decimal string as a number for the chart; null stays null. */
const num = (s: string | null | undefined) => (s === null || s === undefined ? null : Number(s));

export interface Bar {
  time: UTCTimestamp;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** Base volume bought by takers (spot); null where the venue gave none, absent where not asked. */
  takerBuy?: number | null;
}

export interface CandleColumns {
  time: string[];
  open: string[];
  high: string[];
  low: string[];
  close: string[];
  volume: string[];
  takerBuyVolume?: Array<string | null>;
}

/** A perpetual's open interest per period, column by column (null where a backfill could not know it). */
export interface ContextColumns {
  time: string[];
  openInterest: Array<string | null>;
}

/** A candle as the API serves it: the domain's type (the same strings over GraphQL). */
export type { Candle };

export function barsOf(c: CandleColumns): Bar[] {
  const taker = c.takerBuyVolume;
  return c.time.map((t, i) => ({
    time: seconds(t),
    open: +c.open[i],
    high: +c.high[i],
    low: +c.low[i],
    close: +c.close[i],
    volume: +c.volume[i],
    ...(taker ? { takerBuy: num(taker[i]) } : {}),
  }));
}

export const barOf = (c: Candle): Bar => ({
  time: seconds(c.time),
  open: +c.open,
  high: +c.high,
  low: +c.low,
  close: +c.close,
  volume: +c.volume,
  ...(c.takerBuyVolume === undefined ? {} : { takerBuy: num(c.takerBuyVolume) }),
});

/** The share of each bar's volume bought by takers, in percent; null where unknown or without volume. */
export function takerSharePoints(bars: readonly Bar[]): Point[] {
  return bars.map((b) => ({ time: b.time, value: b.takerBuy === null || b.takerBuy === undefined || b.volume === 0 ? null : (100 * b.takerBuy) / b.volume }));
}

/** Whether any bar carries a taker-buy volume (the venue sends trade flow). */
export const hasTakerFlow = (bars: readonly Bar[]) => bars.some((b) => b.takerBuy !== null && b.takerBuy !== undefined);

export function openInterestPoints(c: ContextColumns): Point[] {
  return c.time.map((t, i) => ({ time: seconds(t), value: num(c.openInterest[i]) }));
}

/** A value at a time; null where the API has none (warm-up). */
export interface Point {
  time: UTCTimestamp;
  value: number | null;
}

export interface FeatureRow {
  time: string;
  values: Array<{ value: string | null }>;
}


/** One list of points per feature, from rows whose values come in FEATURES order. */
export function featurePoints(rows: FeatureRow[]): Record<Feature, Point[]> {
  const out = Object.fromEntries(FEATURES.map((f) => [f, [] as Point[]])) as Record<Feature, Point[]>;
  for (const r of rows) {
    const time = seconds(r.time);
    FEATURES.forEach((f, i) => out[f].push({ time, value: num(r.values[i]?.value) }));
  }
  return out;
}

export interface FundingRow {
  time: string;
  rateNormalized: string | null;
  premium: string | null;
}

export interface FundingPoints {
  zscore: Point[];
  /** (perp - spot) / spot, in percent. */
  premium: Point[];
}

/**
 * Hourly funding on the chart's time axis. Every time on the axis is a slot, so hourly points
 * on a 4h or 1d chart would squeeze the candles apart: there each bucket shows its last hour.
 */
export function fundingPoints(rows: FundingRow[], timeframe: Timeframe): FundingPoints {
  const step = Math.max(TIMEFRAME_MS[timeframe], HOUR);
  const byBucket = new Map<number, FundingRow>();
  for (const r of rows) byBucket.set(Math.floor(Date.parse(r.time) / step) * step, r);
  const zscore: Point[] = [];
  const premium: Point[] = [];
  for (const [ms, r] of [...byBucket].sort((a, b) => a[0] - b[0])) {
    const time = (ms / 1000) as UTCTimestamp;
    zscore.push({ time, value: num(r.rateNormalized) });
    const p = num(r.premium);
    premium.push({ time, value: p === null ? null : p * 100 });
  }
  return { zscore, premium };
}

/** Two time-sorted lists as one, `newer` winning where both have a time. */
export function mergeByTime<T extends { time: number }>(older: T[], newer: T[]): T[] {
  if (newer.length === 0) return older;
  if (older.length === 0 || older[older.length - 1].time < newer[0].time) return [...older, ...newer];
  if (newer[newer.length - 1].time < older[0].time) return [...newer, ...older];
  const m = new Map<number, T>();
  for (const p of older) m.set(p.time, p);
  for (const p of newer) m.set(p.time, p);
  return [...m.values()].sort((a, b) => a.time - b.time);
}

export interface Interval {
  start: string;
  end: string;
}

/** The open times of the missing candles of `intervals` (half-open) within [from, to] (seconds). */
export function gapSlots(intervals: Interval[], timeframe: Timeframe, from: number, to: number, cap = 20_000): UTCTimestamp[] {
  const step = TIMEFRAME_MS[timeframe];
  const out: UTCTimestamp[] = [];
  for (const i of intervals) {
    const end = Math.min(Date.parse(i.end), (to + 1) * 1000);
    for (let t = Math.max(Date.parse(i.start), from * 1000); t < end && out.length < cap; t += step) out.push((t / 1000) as UTCTimestamp);
  }
  return out.sort((a, b) => a - b);
}

/** Where the gaps start within [from, to] (seconds), with their lengths, for markers. */
export function gapStarts(intervals: Interval[], from: number, to: number): Array<{ time: UTCTimestamp; ms: number }> {
  return intervals
    .map((i) => ({ start: Date.parse(i.start), end: Date.parse(i.end) }))
    .filter((i) => i.end > from * 1000 && i.start <= to * 1000)
    .map((i) => ({ time: (Math.max(i.start, from * 1000) / 1000) as UTCTimestamp, ms: i.end - i.start }))
    .sort((a, b) => a.time - b.time);
}

export function durationText(ms: number): string {
  const m = Math.round(ms / MINUTE);
  if (m < 60) return `${m}m`;
  if (m < 48 * 60) return `${+(m / 60).toFixed(1)}h`;
  return `${+(m / 1440).toFixed(1)}d`;
}
