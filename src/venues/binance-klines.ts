/**
 * Binance's kline formats, spot and USD-M alike: the REST array [openTime, o, h, l, c, volume,
 * closeTime, quote volume, trades, taker-buy base, taker-buy quote, ...] (integer times, string
 * decimals) and the stream's `kline` event, whose `k.x` is true once, when the kline closes.
 */
import { z } from 'zod';
import type { CandleInput } from '../domain/csv-rows';
import type { CandleTimeframe } from '../domain/timeframe';
import { decimalText, epochMs, type RowSink } from './venue-rows';
import type { CandlePage, CandleStreamHandlers } from './venue';

/** The documented kline array; elements after the taker-buy quote volume are not used. */
const klineRow = z.tuple([epochMs, decimalText, decimalText, decimalText, decimalText, decimalText, epochMs, decimalText, z.number().int().nonnegative(), decimalText, decimalText]).rest(z.unknown());

const klineEvent = z.object({
  e: z.literal('kline'),
  s: z.string(),
  k: z.object({
    t: epochMs,
    s: z.string(),
    i: z.string(),
    o: decimalText,
    c: decimalText,
    h: decimalText,
    l: decimalText,
    v: decimalText,
    n: z.number().int().nonnegative(),
    x: z.boolean(),
    q: decimalText,
    V: decimalText,
    Q: decimalText,
  }),
});

/** One page of a klines answer asked for [startMs, endMs]: the candles closed by `closedBy`, restated at `scale`. */
export function klinesPage(sink: RowSink, json: unknown, ask: { tf: CandleTimeframe; startMs: number; endMs: number; closedBy: number; scale?: number }): CandlePage {
  return sink.candlePage(json, { what: 'klines', noun: 'kline', ...ask }, (raw): CandleInput | null => {
    const k = sink.parse(klineRow, raw, (r) => (Array.isArray(r) ? r[0] : undefined));
    return k && { time: k[0], open: k[1], high: k[2], low: k[3], close: k[4], volume: k[5], quoteVolume: k[7], trades: String(k[8]), takerBuyVolume: k[9], takerBuyQuoteVolume: k[10] };
  });
}

/**
 * A stream event's `data` if it is a kline event: a closed 1m kline of a followed symbol goes to
 * `h.onClosed` (restated at its symbol's scale); an open one is ignored; another is rejected.
 */
export function onKlineEvent(sink: RowSink, data: { e?: unknown; k?: { t?: unknown } }, symbols: readonly string[], h: CandleStreamHandlers, scaleOf: (symbol: string) => number | undefined): void {
  const k = sink.parse(klineEvent, data, () => data.k?.t)?.k;
  if (!k || !k.x) return; // still open: only closed klines are stored
  if (!symbols.includes(k.s) || k.i !== '1m') return sink.reject('range', `kline of ${k.s} ${k.i} not subscribed`, k.t);
  const flow = { quoteVolume: k.q, trades: String(k.n), takerBuyVolume: k.V, takerBuyQuoteVolume: k.Q };
  const row = sink.candle({ time: k.t, open: k.o, high: k.h, low: k.l, close: k.c, volume: k.v, ...flow }, '1m', scaleOf(k.s));
  if (row) h.onClosed({ instrument: k.s, candle: row });
}
