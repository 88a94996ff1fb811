/**
 * Binance USD-M's perpetual context, as the adapter asks for it (binance-perp.venue.ts): the
 * `premiumIndex` snapshot (mark, index, estimated rate), and per closed minute the open
 * interest, the book's mid (`bookTicker`) and the closed 1m `premiumIndexKlines`; the stream's
 * `markPriceUpdate` (`p` mark, `i` index, `r` rate).
 */
import { z } from 'zod';
import { midOf, type Known } from './perp-context';
import type { VenueHttp } from './venue-http';
import { decimalText, epochMs, type RowSink } from './venue-rows';

const premiumIndex = z.object({ symbol: z.string(), markPrice: decimalText, indexPrice: decimalText, lastFundingRate: decimalText });
const openInterest = z.object({ symbol: z.string(), openInterest: decimalText, time: epochMs });
const bookTicker = z.object({ symbol: z.string(), bidPrice: decimalText, askPrice: decimalText });
/** [open time, open, high, low, close, ...]: the premium index per minute. */
const premiumKline = z.tuple([epochMs, decimalText, decimalText, decimalText, decimalText]).rest(z.unknown());
const markPriceEvent = z.object({ e: z.literal('markPriceUpdate'), E: epochMs, s: z.string(), p: decimalText, i: decimalText, r: decimalText });

/** The symbol's premiumIndex now, or null (rejected). */
export async function premiumIndexOf(http: VenueHttp, sink: RowSink, symbol: string) {
  return sink.parse(premiumIndex, await http.json({ method: 'GET', path: '/fapi/v1/premiumIndex', query: { symbol }, weight: 1 }), () => undefined);
}

/** A stream's markPriceUpdate, or null (rejected). */
export const markPriceOf = (sink: RowSink, data: unknown) => sink.parse(markPriceEvent, data, () => undefined);

/** Open interest and the book's mid now, and the premium index at the close of the minute opening at `minuteOpen`. */
export async function minuteValues(http: VenueHttp, sink: RowSink, symbol: string, minuteOpen: number): Promise<Known> {
  const [oi, book, premium] = await Promise.all([
    http.json({ method: 'GET', path: '/fapi/v1/openInterest', query: { symbol }, weight: 1 }),
    http.json({ method: 'GET', path: '/fapi/v1/ticker/bookTicker', query: { symbol }, weight: 2 }),
    http.json({ method: 'GET', path: '/fapi/v1/premiumIndexKlines', query: { symbol, interval: '1m', startTime: minuteOpen, endTime: minuteOpen, limit: 1 }, weight: 1 }),
  ]);
  const o = sink.parse(openInterest, oi, () => undefined);
  const b = sink.parse(bookTicker, book, () => undefined);
  const k = Array.isArray(premium) ? premium.map((raw) => sink.parse(premiumKline, raw, () => undefined)).find((r) => r?.[0] === minuteOpen) : undefined;
  return {
    ...(o ? { openInterest: o.openInterest } : {}),
    ...(b ? { midPrice: midOf(b.bidPrice, b.askPrice) } : {}),
    premium: k ? k[4] : null,
  };
}
