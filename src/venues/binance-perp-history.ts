/**
 * What Binance USD-M keeps of a perpetual's past context, for a backfill: per minute the mark
 * (`markPriceKlines`), index (`indexPriceKlines`, asked by `pair`) and premium
 * (`premiumIndexKlines`) klines, whose closes are the minute's values ("0" volumes, a sample
 * count, the open minute partial: dropped); open interest only as a 5-minute history of the
 * last 30 days (`/futures/data/openInterestHist`, integer `timestamp`: the value at that moment).
 */
import { z } from 'zod';
import type { DerivativesInput } from '../domain/derivatives';
import { minuteCloses, pastMinutesOf, type HistoryAsk } from './perp-context';
import { decimalText, epochMs } from './venue-rows';
import type { OpenInterestPoint } from './venue';
import type { WeightBudget } from './weight-budget';

const FIVE_MINUTES = 300_000;
/** Minute klines per request (the venue's largest page). */
export const HISTORY_KLINES = 1_500;
/** The documented weight of a klines request of 1,000 rows or more. */
const KLINES_WEIGHT = 10;
const OPEN_INTEREST_PAGE = 500;
/** How far back openInterestHist answers (the venue keeps 30 days; a margin for the clock). */
export const OPEN_INTEREST_HORIZON_MS = 30 * 86_400_000 - 3_600_000;

/** [open time, open, high, low, close, volume ("0"), close time, ...]: only the first five are read. */
const priceKline = z.tuple([epochMs, decimalText, decimalText, decimalText, decimalText]).rest(z.unknown());
const openInterestRow = z.object({ symbol: z.string(), sumOpenInterest: decimalText, timestamp: epochMs });

/** Closes of a kind of minute kline opening in [startMs, endMs], closed by `now`, by open time. */
async function closes(a: HistoryAsk, path: string, query: Record<string, string | number>, startMs: number, endMs: number): Promise<Map<number, string>> {
  const json = await a.http.json({ method: 'GET', path, query: { ...query, interval: '1m', startTime: startMs, endTime: endMs, limit: HISTORY_KLINES }, weight: KLINES_WEIGHT });
  if (!Array.isArray(json)) {
    a.sink.reject('schema', `${path} answer is not an array`);
    return new Map();
  }
  return minuteCloses(a, json, priceKline, path, startMs, endMs);
}

/**
 * The closed minutes opening in [startMs, endMs] (at most HISTORY_KLINES) that have a mark and an
 * index price, ascending; the premium where the venue has it.
 */
export async function pastMinutes(a: HistoryAsk, startMs: number, endMs: number): Promise<DerivativesInput[]> {
  const [mark, index, premium] = await Promise.all([
    closes(a, '/fapi/v1/markPriceKlines', { symbol: a.symbol }, startMs, endMs),
    closes(a, '/fapi/v1/indexPriceKlines', { pair: a.symbol }, startMs, endMs),
    closes(a, '/fapi/v1/premiumIndexKlines', { symbol: a.symbol }, startMs, endMs),
  ]);
  return pastMinutesOf(a.sink, a.scale, { mark, index, premium });
}

/**
 * Open interest per 5 minutes for the buckets opening in [startMs, endMs], as far back as the
 * venue keeps it, all pages, ascending: a value stamped T is the close of the bucket opening at
 * T - 5 min.
 */
export async function openInterestHistory(a: HistoryAsk, budget: WeightBudget, startMs: number, endMs: number): Promise<OpenInterestPoint[]> {
  const byBucket = new Map<number, string>();
  // Stamps are bucket closes: the buckets [startMs, endMs] close in [startMs + 5 min, endMs + 5 min].
  // Asked in windows of one page each: which page a longer range answers first is not documented.
  const first = Math.ceil(Math.max(startMs + FIVE_MINUTES, a.now - OPEN_INTEREST_HORIZON_MS) / FIVE_MINUTES) * FIVE_MINUTES;
  const to = Math.min(endMs + FIVE_MINUTES, a.now);
  for (let from = first; from <= to; from += OPEN_INTEREST_PAGE * FIVE_MINUTES) {
    const until = Math.min(to, from + (OPEN_INTEREST_PAGE - 1) * FIVE_MINUTES);
    const json = await a.http.json({
      method: 'GET',
      path: '/futures/data/openInterestHist',
      query: { symbol: a.symbol, period: '5m', startTime: from, endTime: until, limit: OPEN_INTEREST_PAGE },
      weight: 1,
      endpointBudget: budget,
    });
    if (!Array.isArray(json)) {
      a.sink.reject('schema', 'openInterestHist answer is not an array');
      continue;
    }
    for (const raw of json) {
      const r = a.sink.parse(openInterestRow, raw, (x) => (x as { timestamp?: unknown } | null)?.timestamp);
      if (!r) continue;
      if (r.timestamp % FIVE_MINUTES !== 0 || r.timestamp < from || r.timestamp > until || r.symbol !== a.symbol) {
        a.sink.reject('range', `open interest of ${r.symbol} at ${r.timestamp} is not what was asked`, r.timestamp);
        continue;
      }
      const oi = a.sink.openInterest(r.timestamp, r.sumOpenInterest, a.scale);
      if (oi !== null) byBucket.set(r.timestamp - FIVE_MINUTES, oi);
    }
  }
  return [...byBucket].sort((x, y) => x[0] - y[0]).map(([time, openInterest]) => ({ time, openInterest }));
}
