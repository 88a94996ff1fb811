/**
 * Binance USD-M perpetuals (developers.binance.com, "USDⓈ-M Futures"; recorded answers in
 * test/fixtures/venues/binance-perp-recorded.json). Klines 1,500 a page with the open candle
 * (dropped); fundingRate 1,000 a page, stamped ms after the hour; fundingInfo lists only symbols
 * not 8-hourly and shares 500 requests per 5 minutes with fundingRate; exchangeInfo's trading
 * PERPETUALs are followed. Streams `<s>@kline_1m` and `<s>@markPrice@1s`; the rest of the context
 * is asked after each minute (binance-perp-context.ts).
 */
import { z } from 'zod';
import type { FundingRateInput } from '../domain/csv-rows';
import { instrumentOf, scalesOf } from '../domain/ingest-settings';
import type { CandleTimeframe } from '../domain/timeframe';
import { klinesPage, onKlineEvent } from './binance-klines';
import { markPriceOf, minuteValues, premiumIndexOf } from './binance-perp-context';
import { knownContext, pollClosedMinutes, type Known } from './perp-context';
import { openInterestHistory, pastMinutes } from './binance-perp-history';
import { VenueHttp } from './venue-http';
import { decimalText, epochMs, RowSink } from './venue-rows';
import { VenueSocket } from './venue-socket';
import type { CandlePage, CandleStream, CandleStreamHandlers, ContextUpdate, OpenInterestPoint, VenueAdapter, VenueOptions } from './venue';
import type { DerivativesInput } from '../domain/derivatives';
import type { WeightBudget } from './weight-budget';

const KLINES_LIMIT = 1_500;
/** The documented weight of a klines request of 1,000 rows or more. */
const KLINES_WEIGHT = 10;
const FUNDING_PAGE = 1_000;
const FIVE_MINUTES = 300_000;
/** fundingRate and fundingInfo together, per 5 minutes and IP. */
const FUNDING_REQUESTS_PER_5_MIN = 500;
/** /futures/data (openInterestHist), per 5 minutes and IP. */
const FUTURES_DATA_REQUESTS_PER_5_MIN = 1_000;
/** The funding settings change rarely: asked again after this long. */
const FUNDING_INFO_TTL_MS = 600_000;
const EXCHANGE_INFO_TTL_MS = 3_600_000;
const DEFAULT_INTERVAL_HOURS = 8;
const MINUTE = 60_000;

const fundingRow = z.object({ symbol: z.string(), fundingTime: epochMs, fundingRate: decimalText });
const fundingInfoRow = z.object({ symbol: z.string(), fundingIntervalHours: z.number().int().min(1).max(24) });
const exchangeInfo = z.object({ symbols: z.array(z.object({ symbol: z.string(), contractType: z.string(), status: z.string() })) });


export class BinancePerpVenue implements VenueAdapter {
  readonly id = 'binance-perp';
  readonly horizonCandles = null;
  readonly pageCandles = KLINES_LIMIT;
  /** The closed minute's open interest, mid and premium arrive just after it ends. */
  readonly contextSettleMs = 5_000;
  readonly http: VenueHttp;
  private readonly fundingBudget: WeightBudget;
  private readonly futuresDataBudget: WeightBudget;
  private intervals: { at: number; hours: Map<string, number> } | null = null;
  private listing: { at: number; symbols: Set<string> } | null = null;
  /** Contract multipliers of mapped instruments (INGEST_SYMBOL_MAP). */
  private readonly scales: Map<string, number>;

  constructor(private readonly o: VenueOptions) {
    this.http = new VenueHttp({
      venue: this.id,
      baseUrl: o.apiUrl,
      weightPerMinute: o.weightPerMinute,
      usedWeightHeader: 'x-mbx-used-weight-1m',
      observer: o.observer,
      now: o.now,
    });
    this.fundingBudget = this.http.endpointBudget(FUNDING_REQUESTS_PER_5_MIN, FIVE_MINUTES);
    this.futuresDataBudget = this.http.endpointBudget(FUTURES_DATA_REQUESTS_PER_5_MIN, FIVE_MINUTES);
    this.scales = scalesOf(o.symbolMap, this.id);
  }

  get totals() {
    return this.http.totals;
  }

  /** BTC-USDT -> BTCUSDT: a USD-M perpetual is named by its pair. */
  instrument(symbol: string): string {
    return instrumentOf(this.o.symbolMap, this.id, symbol, 'pair');
  }

  /** The perpetuals trading now (`exchangeInfo`), asked at most hourly. */
  async listed(): Promise<Set<string>> {
    const now = this.o.now();
    if (this.listing && now - this.listing.at < EXCHANGE_INFO_TTL_MS) return this.listing.symbols;
    const json = await this.http.json({ method: 'GET', path: '/fapi/v1/exchangeInfo', weight: 1 });
    const parsed = new RowSink(this.id, this.o.observer).parse(exchangeInfo, json, () => undefined);
    const symbols = new Set((parsed?.symbols ?? []).filter((s) => s.contractType === 'PERPETUAL' && s.status === 'TRADING').map((s) => s.symbol));
    this.listing = { at: now, symbols };
    return symbols;
  }

  async candles(symbol: string, tf: CandleTimeframe, startMs: number, endMs: number): Promise<CandlePage> {
    const json = await this.http.json({
      method: 'GET',
      path: '/fapi/v1/klines',
      query: { symbol, interval: tf, startTime: startMs, endTime: endMs, limit: KLINES_LIMIT },
      weight: KLINES_WEIGHT,
    });
    const sink = new RowSink(this.id, this.o.observer);
    // The answer ends with the candle still open: only those closed by now are kept.
    return klinesPage(sink, json, { tf, startMs, endMs, closedBy: this.o.now(), scale: this.scales.get(symbol) });
  }

  /** Settlements in [startMs, endMs ?? now], each its hour's (floor(t + 5 s)), all pages, ascending. */
  async funding(symbol: string, startMs: number, endMs?: number): Promise<FundingRateInput[]> {
    const sink = new RowSink(this.id, this.o.observer);
    const byHour = new Map<number, FundingRateInput>();
    let from = startMs;
    for (;;) {
      const json = await this.http.json({
        method: 'GET',
        path: '/fapi/v1/fundingRate',
        query: { symbol, startTime: from, ...(endMs === undefined ? {} : { endTime: endMs }), limit: FUNDING_PAGE },
        weight: 1,
        endpointBudget: this.fundingBudget,
      });
      if (!Array.isArray(json)) {
        sink.reject('schema', 'fundingRate answer is not an array');
        break;
      }
      let last = -1;
      for (const raw of json) {
        const r = sink.parse(fundingRow, raw, (x) => (x as { fundingTime?: unknown } | null)?.fundingTime);
        if (!r) continue;
        last = Math.max(last, r.fundingTime);
        if (r.symbol !== symbol) {
          sink.reject('range', `funding of ${r.symbol}, asked ${symbol}`, r.fundingTime);
          continue;
        }
        const row = sink.funding(r.fundingTime, r.fundingRate);
        if (!row || row.time > this.o.now()) continue;
        if (byHour.has(row.time)) sink.reject('duplicate', `second funding settlement in hour ${row.time}`, r.fundingTime);
        else byHour.set(row.time, row);
      }
      if (json.length < FUNDING_PAGE || last < from || (endMs !== undefined && last >= endMs)) break;
      from = last + 1;
    }
    return [...byHour.values()].sort((a, b) => a.time - b.time);
  }

  /** The symbol's funding interval now: fundingInfo lists only symbols whose settings differ (absent: 8 hours). */
  async fundingInterval(symbol: string): Promise<number> {
    const now = this.o.now();
    if (!this.intervals || now - this.intervals.at >= FUNDING_INFO_TTL_MS) {
      const json = await this.http.json({ method: 'GET', path: '/fapi/v1/fundingInfo', weight: 1, endpointBudget: this.fundingBudget });
      const sink = new RowSink(this.id, this.o.observer);
      const hours = new Map<string, number>();
      for (const raw of Array.isArray(json) ? json : []) {
        const r = sink.parse(fundingInfoRow, raw, () => undefined);
        if (r) hours.set(r.symbol, r.fundingIntervalHours);
      }
      this.intervals = { at: now, hours };
    }
    return this.intervals.hours.get(symbol) ?? DEFAULT_INTERVAL_HOURS;
  }

  /** The context of `symbols` now: premiumIndex, open interest, the book's mid and the last closed minute's premium. */
  async contexts(symbols: readonly string[]): Promise<ContextUpdate[]> {
    const out: ContextUpdate[] = [];
    for (const symbol of symbols) {
      const sink = new RowSink(this.id, this.o.observer);
      const p = await premiumIndexOf(this.http, sink, symbol);
      const minute = await minuteValues(this.http, new RowSink(this.id, this.o.observer), symbol, Math.floor(this.o.now() / MINUTE) * MINUTE - MINUTE);
      if (!p || minute.openInterest === undefined) continue;
      const context = sink.context(
        { markPrice: p.markPrice, oraclePrice: p.indexPrice, fundingRate: p.lastFundingRate, openInterest: minute.openInterest, midPrice: minute.midPrice ?? null, premium: minute.premium ?? null },
        this.scales.get(symbol),
      );
      if (context) out.push({ instrument: symbol, context });
    }
    return out;
  }

  /** Mark, index and premium of past minutes from their 1m klines (binance-perp-history.ts). */
  async pastContext(symbol: string, startMs: number, endMs: number): Promise<DerivativesInput[]> {
    return pastMinutes(this.historyAsk(symbol), startMs, endMs);
  }

  /** Open interest per 5 minutes, the last 30 days (openInterestHist). */
  async openInterestHistory(symbol: string, startMs: number, endMs: number): Promise<OpenInterestPoint[]> {
    return openInterestHistory(this.historyAsk(symbol), this.futuresDataBudget, startMs, endMs);
  }

  private historyAsk(symbol: string) {
    return { http: this.http, sink: new RowSink(this.id, this.o.observer), symbol, scale: this.scales.get(symbol), now: this.o.now() };
  }

  follow(symbols: readonly string[], h: CandleStreamHandlers): CandleStream {
    const sink = new RowSink(this.id, this.o.observer);
    const known = new Map<string, Known>(symbols.map((s) => [s, {}]));
    const emit = (symbol: string, atMs?: number) => {
      const c = knownContext(known.get(symbol)!);
      const context = c && sink.context(c, this.scales.get(symbol));
      if (context) h.onContext!({ instrument: symbol, context, ...(atMs === undefined ? {} : { atMs }) });
    };
    // Each closed minute's open interest, mid and premium kline, folded into it at its close.
    const stopPoll = h.onContext
      ? pollClosedMinutes(symbols, this.o.now, async (symbol, minuteOpen) => {
          Object.assign(known.get(symbol)!, await minuteValues(this.http, new RowSink(this.id, this.o.observer), symbol, minuteOpen));
          emit(symbol, minuteOpen + MINUTE - 1);
        })
      : null;
    const streams = symbols.flatMap((s) => [`${s.toLowerCase()}@kline_1m`, ...(h.onContext ? [`${s.toLowerCase()}@markPrice@1s`] : [])]).join('/');
    const socket = new VenueSocket({
      venue: this.id,
      url: `${this.o.wsUrl}/stream?streams=${streams}`,
      timeoutMs: this.o.socketTimeoutMs,
      handlers: h,
      observer: this.o.observer,
      subscribe: () => undefined, // the streams are named in the URL
      ping: (ws) => ws.ping(),
      onMessage: (msg) => {
        const data = (msg as { data?: { e?: unknown; k?: { t?: unknown } } } | null)?.data;
        if (data?.e === 'markPriceUpdate' && h.onContext) {
          const m = markPriceOf(sink, data);
          if (!m || !known.has(m.s)) return;
          Object.assign(known.get(m.s)!, { markPrice: m.p, oraclePrice: m.i, fundingRate: m.r });
          return emit(m.s);
        }
        if (data?.e === 'kline') onKlineEvent(sink, data, symbols, h, (symbol) => this.scales.get(symbol));
      },
    });
    return {
      get connected() {
        return socket.connected;
      },
      close: () => {
        stopPoll?.();
        socket.close();
      },
    };
  }

  close(): void {
    this.http.close();
  }
}
