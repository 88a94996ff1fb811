/**
 * Hyperliquid, the perpetual venue (hyperliquid.gitbook.io, "API"). `POST /info`: `candleSnapshot`
 * (rows {t,T,s,i,o,c,h,l,v,n}, at most 5,000 an answer, only the 5,000 most recent exist),
 * `fundingHistory` (500 an answer, paged forward; settlements stamped up to minutes late) and
 * `metaAndAssetCtxs` ([meta, ctxs] by universe index); weight 20 a request plus 1 per 60 candles
 * or 20 funding rows, 1,200 a minute per IP. The WebSocket pushes the open candle again and again
 * (closed once a later one arrives) and `activeAssetCtx`'s `ctx`. Funding's `premium`: not stored.
 */
import { z } from 'zod';
import type { CandleInput, FundingRateInput } from '../domain/csv-rows';
import type { PerpContext } from '../domain/derivatives';
import { instrumentOf, scalesOf } from '../domain/ingest-settings';
import { TIMEFRAME_MS, type CandleTimeframe } from '../domain/timeframe';
import { VenueHttp } from './venue-http';
import { decimalText, decimalTextOrNumber, epochMs, RowSink } from './venue-rows';
import { VenueSocket } from './venue-socket';
import type { CandlePage, CandleStream, CandleStreamHandlers, ContextUpdate, VenueAdapter, VenueOptions } from './venue';

const INFO_WEIGHT = 20;
const CANDLES_PER_WEIGHT = 60;
const FUNDING_ROWS_PER_WEIGHT = 20;
const FUNDING_PAGE = 500;

// Decimals are strings in the REST answers; the socket's typed docs say number, its traffic
// sends strings: both are taken, numbers kept as their shortest text.
const candleRow = z.object({
  t: epochMs,
  T: epochMs,
  s: z.string(),
  i: z.string(),
  o: decimalTextOrNumber,
  c: decimalTextOrNumber,
  h: decimalTextOrNumber,
  l: decimalTextOrNumber,
  v: decimalTextOrNumber,
  n: z.number().int().nonnegative(),
});
type CandleRow = z.infer<typeof candleRow>;

const fundingRow = z.object({ coin: z.string(), fundingRate: decimalText, premium: decimalText, time: epochMs });

// A perpetual's context: strings in traffic (numbers in the typed docs); midPx and premium
// are null while the book is empty. Other fields (volumes, impact prices) are not used.
const assetCtx = z.object({
  openInterest: decimalTextOrNumber,
  markPx: decimalTextOrNumber,
  oraclePx: decimalTextOrNumber,
  midPx: decimalTextOrNumber.nullable().optional(),
  funding: decimalTextOrNumber,
  premium: decimalTextOrNumber.nullable().optional(),
});
const activeAssetCtx = z.object({ coin: z.string(), ctx: assetCtx });
const metaAndAssetCtxs = z.tuple([z.object({ universe: z.array(z.object({ name: z.string() })) }), z.array(z.unknown())]);

const openTimeOf = (raw: unknown) => (raw as { t?: unknown } | null)?.t;
const fieldsOf = (c: CandleRow): CandleInput => ({ time: c.t, open: c.o, high: c.h, low: c.l, close: c.c, volume: c.v, trades: String(c.n) });
const contextOf = (c: z.infer<typeof assetCtx>): PerpContext => ({
  openInterest: c.openInterest,
  markPrice: c.markPx,
  oraclePrice: c.oraclePx,
  midPrice: c.midPx ?? null,
  fundingRate: c.funding,
  premium: c.premium ?? null,
});

export class HyperliquidVenue implements VenueAdapter {
  readonly id = 'hyperliquid';
  readonly horizonCandles = 5_000;
  readonly pageCandles = 5_000;
  readonly http: VenueHttp;
  /** Contract multipliers of mapped instruments (INGEST_SYMBOL_MAP: kPEPE is 1,000 PEPE). */
  private readonly scales: Map<string, number>;

  constructor(private readonly o: VenueOptions) {
    this.http = new VenueHttp({ venue: this.id, baseUrl: o.apiUrl, weightPerMinute: o.weightPerMinute, observer: o.observer, now: o.now });
    this.scales = scalesOf(o.symbolMap, this.id);
  }

  get totals() {
    return this.http.totals;
  }

  /** BTC-USDT -> BTC: Hyperliquid names a perpetual by its base coin. */
  instrument(symbol: string): string {
    return instrumentOf(this.o.symbolMap, this.id, symbol, 'base');
  }

  async candles(coin: string, tf: CandleTimeframe, startMs: number, endMs: number): Promise<CandlePage> {
    const p = TIMEFRAME_MS[tf];
    const json = await this.http.json({
      method: 'POST',
      path: '/info',
      body: { type: 'candleSnapshot', req: { coin, interval: tf, startTime: startMs, endTime: endMs + p - 1 } },
      weight: INFO_WEIGHT,
      extraWeight: (j) => (Array.isArray(j) ? Math.floor(j.length / CANDLES_PER_WEIGHT) : 0),
    });
    const sink = new RowSink(this.id, this.o.observer);
    return sink.candlePage(json, { what: 'candleSnapshot', noun: 'candle', tf, startMs, endMs, closedBy: this.o.now(), scale: this.scales.get(coin) }, (raw) => {
      const c = sink.parse(candleRow, raw, openTimeOf);
      if (!c) return null;
      if (c.s !== coin || c.i !== tf) {
        sink.reject('range', `candle of ${c.s} ${c.i}, asked ${coin} ${tf}`, c.t);
        return null;
      }
      return fieldsOf(c);
    });
  }

  /**
   * Funding of [startMs, endMs ?? now]: each settlement is its hour's (floor(t + 5 s)); a second
   * settlement in one hour is dropped and counted, the one nearest the hour kept.
   */
  async funding(coin: string, startMs: number, endMs?: number): Promise<FundingRateInput[]> {
    const sink = new RowSink(this.id, this.o.observer);
    const byHour = new Map<number, { row: FundingRateInput; offMs: number }>();
    let from = startMs;
    for (;;) {
      const json = await this.http.json({
        method: 'POST',
        path: '/info',
        body: { type: 'fundingHistory', coin, startTime: from, ...(endMs === undefined ? {} : { endTime: endMs }) },
        weight: INFO_WEIGHT,
        extraWeight: (j) => (Array.isArray(j) ? Math.floor(j.length / FUNDING_ROWS_PER_WEIGHT) : 0),
      });
      if (!Array.isArray(json)) {
        sink.reject('schema', 'fundingHistory answer is not an array');
        break;
      }
      let last = -1;
      for (const raw of json) {
        const r = sink.parse(fundingRow, raw, (x) => (x as { time?: unknown } | null)?.time);
        if (!r) continue;
        last = Math.max(last, r.time);
        if (r.coin !== coin) {
          sink.reject('range', `funding of ${r.coin}, asked ${coin}`, r.time);
          continue;
        }
        const row = sink.funding(r.time, r.fundingRate);
        if (!row || row.time > this.o.now()) continue;
        const offMs = Math.abs(r.time - row.time);
        const kept = byHour.get(row.time);
        if (kept && kept.offMs <= offMs) {
          sink.reject('duplicate', `second funding settlement at ${r.time} in hour ${row.time}`, r.time);
          continue;
        }
        if (kept) sink.reject('duplicate', `second funding settlement in hour ${row.time}`, row.time + kept.offMs);
        byHour.set(row.time, { row, offMs });
      }
      if (json.length < FUNDING_PAGE || last < from || (endMs !== undefined && last >= endMs)) break;
      from = last + 1;
    }
    return [...byHour.values()].map((k) => k.row).sort((a, b) => a.time - b.time);
  }

  /** The context of `coins` now (`metaAndAssetCtxs`); a coin the venue does not list is left out. */
  async contexts(coins: readonly string[]): Promise<ContextUpdate[]> {
    const json = await this.http.json({ method: 'POST', path: '/info', body: { type: 'metaAndAssetCtxs' }, weight: INFO_WEIGHT });
    const sink = new RowSink(this.id, this.o.observer);
    const parsed = sink.parse(metaAndAssetCtxs, json, () => undefined);
    if (!parsed) return [];
    const [meta, ctxs] = parsed;
    const out: ContextUpdate[] = [];
    meta.universe.forEach((asset, i) => {
      if (!coins.includes(asset.name)) return;
      const ctx = sink.parse(assetCtx, ctxs[i], () => undefined);
      const context = ctx && sink.context(contextOf(ctx), this.scales.get(asset.name));
      if (context) out.push({ instrument: asset.name, context });
    });
    return out;
  }

  follow(coins: readonly string[], h: CandleStreamHandlers): CandleStream {
    const p = TIMEFRAME_MS['1m'];
    /** The open candle seen last, per coin: closed once a later one arrives. */
    const open = new Map<string, CandleRow>();
    const sink = new RowSink(this.id, this.o.observer);
    const onCandle = (raw: unknown) => {
      const c = sink.parse(candleRow, raw, openTimeOf);
      if (!c) return;
      if (!coins.includes(c.s) || c.i !== '1m') return sink.reject('range', `candle of ${c.s} ${c.i} not subscribed`, c.t);
      const prev = open.get(c.s);
      if (prev && c.t < prev.t) return; // an older candle re-sent: its final values were kept
      // The same minute with fewer trades than the update held: an older state of it re-sent
      // (a minute's trade count only grows), which must not replace the later values.
      if (prev && c.t === prev.t && c.n < prev.n) return;
      open.set(c.s, c);
      if (prev && c.t > prev.t && prev.t + p <= this.o.now() + 5_000) {
        const row = sink.candle(fieldsOf(prev), '1m', this.scales.get(prev.s));
        if (row) h.onClosed({ instrument: prev.s, candle: row });
      }
    };
    const onContext = (raw: unknown) => {
      const u = sink.parse(activeAssetCtx, raw, () => undefined);
      if (!u) return;
      if (!coins.includes(u.coin)) return sink.reject('range', `context of ${u.coin} not subscribed`);
      const context = sink.context(contextOf(u.ctx), this.scales.get(u.coin));
      if (context) h.onContext!({ instrument: u.coin, context });
    };
    return new VenueSocket({
      venue: this.id,
      url: this.o.wsUrl,
      timeoutMs: this.o.socketTimeoutMs,
      handlers: h,
      observer: this.o.observer,
      subscribe: (ws) => {
        open.clear();
        for (const coin of coins) {
          ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'candle', coin, interval: '1m' } }));
          if (h.onContext) ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'activeAssetCtx', coin } }));
        }
      },
      ping: (ws) => ws.send(JSON.stringify({ method: 'ping' })),
      onMessage: (msg) => {
        const m = msg as { channel?: unknown; data?: unknown } | null;
        if (m?.channel === 'activeAssetCtx' && h.onContext) return onContext(m.data);
        if (m?.channel !== 'candle') return; // subscriptionResponse, pong, error notices
        for (const raw of Array.isArray(m.data) ? m.data : [m.data]) onCandle(raw);
      },
    });
  }

  close(): void {
    this.http.close();
  }
}
