/**
 * Binance spot, the spot venue (developers.binance.com, Spot API). `GET /api/v3/klines` answers at
 * most 1,000 rows, 12-element arrays [openTime, o, h, l, c, volume, closeTime, quote volume,
 * trades, taker-buy base, taker-buy quote, ignore], decimals as strings, weight 2; every answer
 * reports `X-MBX-USED-WEIGHT-1M`; a 429 carries Retry-After and requests sent during it earn a
 * 418 ban. The combined stream wraps each event as {"stream","data":{"e":"kline","k":{...}}} (with
 * q, n, V, Q); `k.x` is true once, when the kline closes. Server pings every 20 s (ws pongs).
 */
import { z } from 'zod';
import { baseQuote, scalesOf } from '../domain/ingest-settings';
import type { CandleTimeframe } from '../domain/timeframe';
import { VenueHttp } from './venue-http';
import { decimalText, epochMs, RowSink } from './venue-rows';
import { VenueSocket } from './venue-socket';
import type { CandlePage, CandleStream, CandleStreamHandlers, VenueAdapter, VenueOptions } from './venue';

const KLINES_WEIGHT = 2;
const KLINES_LIMIT = 1_000;

/** The documented kline array; the last element is unused but must be there. */
const klineRow = z.tuple([
  epochMs,
  decimalText,
  decimalText,
  decimalText,
  decimalText,
  decimalText,
  epochMs,
  decimalText,
  z.number().int().nonnegative(),
  decimalText,
  decimalText,
  z.unknown(),
]);

const klineEvent = z.object({
  e: z.literal('kline'),
  s: z.string(),
  k: z.object({
    t: epochMs,
    T: epochMs,
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

export class BinanceVenue implements VenueAdapter {
  readonly id = 'binance';
  readonly horizonCandles = null;
  readonly pageCandles = KLINES_LIMIT;
  readonly http: VenueHttp;
  /** Multipliers of mapped instruments (INGEST_SYMBOL_MAP), rare on spot. */
  private readonly scales: Map<string, number>;

  constructor(private readonly o: VenueOptions) {
    this.scales = scalesOf(o.symbolMap, this.id);
    this.http = new VenueHttp({
      venue: this.id,
      baseUrl: o.apiUrl,
      weightPerMinute: o.weightPerMinute,
      usedWeightHeader: 'x-mbx-used-weight-1m',
      observer: o.observer,
      now: o.now,
    });
  }

  get totals() {
    return this.http.totals;
  }

  /** BTC-USDT -> BTCUSDT: Binance names a pair base then quote, no separator. */
  instrument(symbol: string): string {
    const { base, quote } = baseQuote(symbol);
    return this.o.symbolMap[symbol]?.[this.id]?.instrument ?? `${base}${quote}`;
  }

  async candles(symbol: string, tf: CandleTimeframe, startMs: number, endMs: number): Promise<CandlePage> {
    const json = await this.http.json({
      method: 'GET',
      path: '/api/v3/klines',
      query: { symbol, interval: tf, startTime: startMs, endTime: endMs, limit: KLINES_LIMIT },
      weight: KLINES_WEIGHT,
    });
    const sink = new RowSink(this.id, this.o.observer);
    return sink.candlePage(json, { what: 'klines', noun: 'kline', tf, startMs, endMs, closedBy: this.o.now(), scale: this.scales.get(symbol) }, (raw) => {
      const k = sink.parse(klineRow, raw, (r) => (Array.isArray(r) ? r[0] : undefined));
      return k && { time: k[0], open: k[1], high: k[2], low: k[3], close: k[4], volume: k[5], quoteVolume: k[7], trades: String(k[8]), takerBuyVolume: k[9], takerBuyQuoteVolume: k[10] };
    });
  }

  follow(symbols: readonly string[], h: CandleStreamHandlers): CandleStream {
    const sink = new RowSink(this.id, this.o.observer);
    const streams = symbols.map((s) => `${s.toLowerCase()}@kline_1m`).join('/');
    return new VenueSocket({
      venue: this.id,
      url: `${this.o.wsUrl}/stream?streams=${streams}`,
      timeoutMs: this.o.socketTimeoutMs,
      handlers: h,
      observer: this.o.observer,
      subscribe: () => undefined, // the streams are named in the URL
      ping: (ws) => ws.ping(),
      onMessage: (msg) => {
        const data = (msg as { data?: { e?: unknown; k?: { t?: unknown } } } | null)?.data;
        if (data?.e !== 'kline') return;
        const k = sink.parse(klineEvent, data, () => data.k?.t)?.k;
        if (!k || !k.x) return; // still open: only closed klines are stored
        if (!symbols.includes(k.s) || k.i !== '1m') return sink.reject('range', `kline of ${k.s} ${k.i} not subscribed`, k.t);
        const flow = { quoteVolume: k.q, trades: String(k.n), takerBuyVolume: k.V, takerBuyQuoteVolume: k.Q };
        const row = sink.candle({ time: k.t, open: k.o, high: k.h, low: k.l, close: k.c, volume: k.v, ...flow }, '1m', this.scales.get(k.s));
        if (row) h.onClosed({ instrument: k.s, candle: row });
      },
    });
  }

  close(): void {
    this.http.close();
  }
}
