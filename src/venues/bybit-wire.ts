/**
 * Bybit v5's wire formats (bybit-exchange.github.io/docs/v5; recorded answers in
 * test/fixtures/venues/bybit-perp-recorded.json): every answer an envelope whose `retCode` (a
 * number, or a string in some captures) is 0 for data and an error otherwise, even under HTTP
 * 200; lists newest first; decimals and millisecond times as strings (the socket's kline times
 * as numbers). Only the fields the adapter reads are checked.
 */
import { z } from 'zod';
import { decimalText, epochMs, type RowSink } from './venue-rows';
import type { AnswerProblem } from './venue-http';
import { midOf, type Known } from './perp-context';

/** Milliseconds since the epoch, as Bybit writes them: a digit string, or a number. */
export const msText = z.union([epochMs, z.string().regex(/^\d{1,16}$/).transform(Number)]);
/** A decimal, or "" where the venue has none (an empty book side, a dated future's rate). */
const decimalOrEmpty = z.union([decimalText, z.literal('')]);

const envelope = z.object({ retCode: z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)]), retMsg: z.string().optional() });
const listResult = z.object({ result: z.object({ list: z.array(z.unknown()), nextPageCursor: z.string().optional() }) });

/** Bybit's error codes that are worth waiting for (10006: too many visits) or retrying (its own timeouts). */
const RATE_LIMITED = 10006;
const SERVER_BUSY = new Set([10000, 10016]);

/** The problem an answer reports under HTTP 200 (VenueHttp's `answerProblem`), or null: data. */
export function bybitProblem(json: unknown, headers: Headers): AnswerProblem | null {
  const e = envelope.safeParse(json);
  if (!e.success || e.data.retCode === 0) return null;
  const reason = `retCode ${e.data.retCode} ${e.data.retMsg ?? ''}`.trim();
  if (e.data.retCode === RATE_LIMITED) {
    const reset = Number(headers.get('x-bapi-limit-reset-timestamp'));
    return { kind: 'rate-limited', reason, waitMs: Number.isFinite(reset) && reset > 0 ? Math.max(0, reset - Date.now()) : null };
  }
  return SERVER_BUSY.has(e.data.retCode) ? { kind: 'retry', reason } : { kind: 'refused', reason };
}

/** The `result.list` of a data answer (and its next page's cursor), or null (rejected as schema). */
export function resultList(sink: RowSink, json: unknown, what: string): { list: unknown[]; cursor: string } | null {
  const r = listResult.safeParse(json);
  if (!r.success) {
    sink.reject('schema', `${what} answer has no result.list`);
    return null;
  }
  return { list: r.data.result.list, cursor: r.data.result.nextPageCursor ?? '' };
}

/** /v5/market/instruments-info: `fundingInterval` in minutes (0 on dated futures). */
export const instrumentRow = z.object({ symbol: z.string(), contractType: z.string(), status: z.string(), fundingInterval: z.number().int().nonnegative() });
/** /v5/market/kline: [start, open, high, low, close, volume, turnover]. */
export const klineRow = z.tuple([msText, decimalText, decimalText, decimalText, decimalText, decimalText, decimalText]).rest(z.unknown());
/** The mark, index and premium-index klines: [start, open, high, low, close]. */
export const priceKlineRow = z.tuple([msText, decimalText, decimalText, decimalText, decimalText]).rest(z.unknown());
export const fundingRow = z.object({ symbol: z.string(), fundingRate: decimalText, fundingRateTimestamp: msText });
/**
 * /v5/market/open-interest: the value at `timestamp`. Since 2026 `openInterest` counts both
 * sides and `singleOpenInterest` one side, as every other venue does; older answers have only
 * `openInterest`, one side.
 */
export const openInterestRow = z.object({ openInterest: decimalText, singleOpenInterest: decimalText.optional(), timestamp: msText });

/** The ticker fields of the context; a socket delta carries only those that changed. */
export const tickerFields = z.object({
  symbol: z.string(),
  markPrice: decimalOrEmpty.optional(),
  indexPrice: decimalOrEmpty.optional(),
  openInterest: decimalOrEmpty.optional(),
  singleOpenInterest: decimalOrEmpty.optional(),
  fundingRate: decimalOrEmpty.optional(),
  bid1Price: decimalOrEmpty.optional(),
  ask1Price: decimalOrEmpty.optional(),
});
export type TickerFields = z.infer<typeof tickerFields>;

/** A `kline.1.<symbol>` push: one or more candles, `confirm` true once a candle has closed. */
export const klineMessage = z.object({
  topic: z.string(),
  data: z.array(
    z.object({ start: msText, interval: z.string(), open: decimalText, close: decimalText, high: decimalText, low: decimalText, volume: decimalText, turnover: decimalText, confirm: z.boolean() }),
  ),
});
/** A `tickers.<symbol>` push: a snapshot of every field, or a delta of the changed ones. */
export const tickersMessage = z.object({ topic: z.string(), type: z.enum(['snapshot', 'delta']), data: tickerFields });

/** An instrument's book and context as the tickers stream last said them. */
export interface Ticker extends Known {
  bid?: string;
  ask?: string;
  /** The venue sends one side's open interest (`singleOpenInterest`): its both-sides `openInterest` is not read. */
  oneSide?: boolean;
}

/**
 * Fold a ticker (a snapshot, or a delta's changed fields) into what is known; returns it. An
 * empty value is unknown, except a book side's: that side is empty.
 */
export function mergeTicker(k: Ticker, t: TickerFields): Ticker {
  if (t.markPrice) k.markPrice = t.markPrice;
  if (t.indexPrice) k.oraclePrice = t.indexPrice;
  if (t.singleOpenInterest) {
    k.openInterest = t.singleOpenInterest;
    k.oneSide = true;
  } else if (t.openInterest && !k.oneSide) k.openInterest = t.openInterest;
  if (t.fundingRate) k.fundingRate = t.fundingRate;
  if (t.bid1Price !== undefined) k.bid = t.bid1Price;
  if (t.ask1Price !== undefined) k.ask = t.ask1Price;
  k.midPrice = k.bid && k.ask ? midOf(k.bid, k.ask) : null;
  return k;
}
