/**
 * What Bybit keeps of a linear perpetual's past context, for a backfill: per minute the mark,
 * index and premium-index klines (`/v5/market/{mark,index,premium-index}-price-kline`, their
 * closes; the open minute partial: dropped) and open interest per 5 minutes
 * (`/v5/market/open-interest`, `intervalTime=5min`, 200 a page newest first, older pages by
 * `cursor`, asked in windows of one page; the value stamped T is the one at T).
 */
import type { DerivativesInput } from '../domain/derivatives';
import { openInterestRow, priceKlineRow, resultList } from './bybit-wire';
import { minuteCloses, pastMinutesOf, type HistoryAsk } from './perp-context';
import type { OpenInterestPoint } from './venue';

const FIVE_MINUTES = 300_000;
/** Minute klines per request (the venue's largest page). */
export const HISTORY_KLINES = 1_000;
const OPEN_INTEREST_PAGE = 200;
/** Cursor pages within one window at most: a cursor that never ends cannot loop. */
const MAX_CURSOR_PAGES = 20;

/** Closes of a kind of minute kline opening in [startMs, endMs], closed by `now`, by open time. */
async function closes(a: HistoryAsk, path: string, startMs: number, endMs: number): Promise<Map<number, string>> {
  const json = await a.http.json({ method: 'GET', path, query: { category: 'linear', symbol: a.symbol, interval: '1', start: startMs, end: endMs, limit: HISTORY_KLINES }, weight: 1 });
  return minuteCloses(a, resultList(a.sink, json, path)?.list ?? [], priceKlineRow, path, startMs, endMs);
}

/**
 * The closed minutes opening in [startMs, endMs] (at most HISTORY_KLINES) that have a mark and an
 * index price, ascending; the premium where the venue has it.
 */
export async function pastMinutes(a: HistoryAsk, startMs: number, endMs: number): Promise<DerivativesInput[]> {
  const [mark, index, premium] = await Promise.all([
    closes(a, '/v5/market/mark-price-kline', startMs, endMs),
    closes(a, '/v5/market/index-price-kline', startMs, endMs),
    closes(a, '/v5/market/premium-index-price-kline', startMs, endMs),
  ]);
  return pastMinutesOf(a.sink, a.scale, { mark, index, premium });
}

/**
 * Open interest per 5 minutes for the buckets opening in [startMs, endMs], all pages, ascending:
 * a value stamped T is the close of the bucket opening at T - 5 min.
 */
export async function openInterestHistory(a: HistoryAsk, startMs: number, endMs: number): Promise<OpenInterestPoint[]> {
  const byBucket = new Map<number, string>();
  // Stamps are bucket closes: the buckets [startMs, endMs] close in [startMs + 5 min, endMs + 5 min].
  // Asked in windows of one page: which end of a longer range a page keeps is not documented.
  const first = Math.ceil((startMs + FIVE_MINUTES) / FIVE_MINUTES) * FIVE_MINUTES;
  const to = Math.min(endMs + FIVE_MINUTES, a.now);
  for (let from = first; from <= to; from += OPEN_INTEREST_PAGE * FIVE_MINUTES) {
    const until = Math.min(to, from + (OPEN_INTEREST_PAGE - 1) * FIVE_MINUTES);
    let cursor = '';
    // The cursor only if the venue answers a window in shorter pages.
    for (let page = 0; page < MAX_CURSOR_PAGES; page++) {
      const query = { category: 'linear', symbol: a.symbol, intervalTime: '5min', startTime: from, endTime: until, limit: OPEN_INTEREST_PAGE, ...(cursor ? { cursor } : {}) };
      const answer = resultList(a.sink, await a.http.json({ method: 'GET', path: '/v5/market/open-interest', query, weight: 1 }), 'open-interest');
      if (!answer) break;
      let oldest = Infinity;
      for (const raw of answer.list) {
        const r = a.sink.parse(openInterestRow, raw, (x) => Number((x as { timestamp?: unknown } | null)?.timestamp));
        if (!r) continue;
        oldest = Math.min(oldest, r.timestamp);
        if (r.timestamp % FIVE_MINUTES !== 0 || r.timestamp < from || r.timestamp > until) {
          a.sink.reject('range', `open interest at ${r.timestamp} is not what was asked`, r.timestamp);
          continue;
        }
        const oi = a.sink.openInterest(r.timestamp, r.singleOpenInterest ?? r.openInterest, a.scale);
        if (oi !== null) byBucket.set(r.timestamp - FIVE_MINUTES, oi);
      }
      if (!answer.cursor || answer.cursor === cursor || answer.list.length === 0 || oldest <= from) break;
      cursor = answer.cursor;
    }
  }
  return [...byBucket].sort((x, y) => x[0] - y[0]).map(([time, openInterest]) => ({ time, openInterest }));
}
