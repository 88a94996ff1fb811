/**
 * Binance spot, the spot venue (developers.binance.com, Spot API). `GET /api/v3/klines` answers at
 * most 1,000 rows, 12-element arrays [openTime, o, h, l, c, volume, closeTime, quote volume,
 * trades, taker-buy base, taker-buy quote, ignore], decimals as strings, weight 2; every answer
 * reports `X-MBX-USED-WEIGHT-1M`; a 429 carries Retry-After and requests sent during it earn a
 * 418 ban. The combined stream wraps each event as {"stream","data":{"e":"kline","k":{...}}} (with
 * q, n, V, Q); `k.x` is true once, when the kline closes. Server pings every 20 s (ws pongs).
 */
import { instrumentOf, scalesOf } from '../domain/ingest-settings';
import type { CandleTimeframe } from '../domain/timeframe';
import { klinesPage, onKlineEvent } from './binance-klines';
import { VenueHttp } from './venue-http';
import { RowSink } from './venue-rows';
import { VenueSocket } from './venue-socket';
import type { CandlePage, CandleStream, CandleStreamHandlers, VenueAdapter, VenueOptions } from './venue';

const KLINES_WEIGHT = 2;
const KLINES_LIMIT = 1_000;



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
    return instrumentOf(this.o.symbolMap, this.id, symbol, 'pair');
  }

  async candles(symbol: string, tf: CandleTimeframe, startMs: number, endMs: number): Promise<CandlePage> {
    const json = await this.http.json({
      method: 'GET',
      path: '/api/v3/klines',
      query: { symbol, interval: tf, startTime: startMs, endTime: endMs, limit: KLINES_LIMIT },
      weight: KLINES_WEIGHT,
    });
    const sink = new RowSink(this.id, this.o.observer);
    return klinesPage(sink, json, { tf, startMs, endMs, closedBy: this.o.now(), scale: this.scales.get(symbol) });
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
        if (data?.e === 'kline') onKlineEvent(sink, data, symbols, h, (symbol) => this.scales.get(symbol));
      },
    });
  }

  close(): void {
    this.http.close();
  }
}
