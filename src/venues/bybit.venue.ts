/**
 * Bybit linear perpetuals (bybit-exchange.github.io/docs/v5; formats in bybit-wire.ts). Klines
 * 1,000 a page newest first with the open candle (dropped); funding 200 a page newest first,
 * `startTime` only with `endTime`; instruments-info's `fundingInterval` in minutes. One socket
 * follows `kline.1.<s>` (a closing frame says `confirm: true`, maybe beside the next open candle)
 * and `tickers.<s>` (a snapshot, then deltas of the changed fields, merged here); each closed
 * minute's premium is asked just after it (its premium-index kline).
 */
import type { FundingRateInput } from '../domain/csv-rows';
import type { DerivativesInput } from '../domain/derivatives';
import { instrumentOf, scalesOf } from '../domain/ingest-settings';
import type { CandleTimeframe } from '../domain/timeframe';
import { openInterestHistory, pastMinutes } from './bybit-history';
import { bybitProblem, fundingRow, instrumentRow, klineMessage, klineRow, mergeTicker, priceKlineRow, resultList, tickerFields, tickersMessage, type Ticker } from './bybit-wire';
import { knownContext, pollClosedMinutes } from './perp-context';
import { VenueHttp } from './venue-http';
import { RowSink } from './venue-rows';
import { VenueSocket } from './venue-socket';
import type { CandlePage, CandleStream, CandleStreamHandlers, ContextUpdate, OpenInterestPoint, VenueAdapter, VenueOptions } from './venue';

const KLINES_LIMIT = 1_000;
const FUNDING_PAGE = 200;
const INSTRUMENTS_PAGE = 1_000;
/** Funding intervals change rarely: instruments-info is asked again after this long. */
const INSTRUMENTS_TTL_MS = 600_000;
const MINUTE = 60_000;
/** Bybit asks for a ping at least every 20 s. */
const PING_EVERY_MS = 20_000;
/** Topics per subscribe frame (the spot stream's bound; linear has none, but short frames fail alone). */
const TOPICS_PER_FRAME = 10;
/** The closed minute's premium kline is asked again this often while the minute may still settle. */
const PREMIUM_RETRY_MS = 1_000;
const PREMIUM_ATTEMPTS = 3;
/** The service's timeframes as Bybit's `interval` names them. */
const INTERVALS: Record<CandleTimeframe, string> = { '1m': '1', '5m': '5', '15m': '15', '1h': '60', '4h': '240', '1d': 'D' };

export class BybitVenue implements VenueAdapter {
  readonly id = 'bybit';
  readonly horizonCandles = null;
  readonly pageCandles = KLINES_LIMIT;
  /** A closed minute's premium kline is asked just after it ends. */
  readonly contextSettleMs = 5_000;
  readonly http: VenueHttp;
  private instruments: { at: number; intervals: Map<string, number> } | null = null;
  /** Contract multipliers of mapped instruments (INGEST_SYMBOL_MAP). */
  private readonly scales: Map<string, number>;

  constructor(private readonly o: VenueOptions) {
    this.http = new VenueHttp({
      venue: this.id,
      baseUrl: o.apiUrl,
      weightPerMinute: o.weightPerMinute,
      observer: o.observer,
      now: o.now,
      // "403, access too frequent": the IP is banned for at least 10 minutes; 600 requests per 5 s.
      ban: { status: 403, ms: 600_000 },
      burst: { requests: 500, windowMs: 5_000 },
      answerProblem: bybitProblem,
    });
    this.scales = scalesOf(o.symbolMap, this.id);
  }

  get totals() {
    return this.http.totals;
  }

  /** BTC-USDT -> BTCUSDT: a linear perpetual is named by its pair. */
  instrument(symbol: string): string {
    return instrumentOf(this.o.symbolMap, this.id, symbol, 'pair');
  }

  /** The linear perpetuals trading now (instruments-info). */
  async listed(): Promise<Set<string>> {
    return new Set((await this.instrumentIntervals()).keys());
  }

  /** The instrument's funding interval now, in hours (instruments-info says minutes). */
  async fundingInterval(symbol: string): Promise<number> {
    return (await this.instrumentIntervals()).get(symbol) ?? 8;
  }

  /** Trading linear perpetuals and their funding intervals in hours, every page, asked at most every 10 minutes. */
  private async instrumentIntervals(): Promise<Map<string, number>> {
    const now = this.o.now();
    if (this.instruments && now - this.instruments.at < INSTRUMENTS_TTL_MS) return this.instruments.intervals;
    const sink = new RowSink(this.id, this.o.observer);
    const intervals = new Map<string, number>();
    let cursor = '';
    do {
      const query = { category: 'linear', limit: INSTRUMENTS_PAGE, ...(cursor ? { cursor } : {}) };
      const answer = resultList(sink, await this.http.json({ method: 'GET', path: '/v5/market/instruments-info', query, weight: 1 }), 'instruments-info');
      // Never cache a broken answer: every symbol would look unlisted for 10 minutes.
      if (!answer) throw new Error('bybit instruments-info answered no list');
      for (const raw of answer.list) {
        const r = sink.parse(instrumentRow, raw, () => undefined);
        if (!r || r.contractType !== 'LinearPerpetual' || r.status !== 'Trading') continue;
        if (r.fundingInterval > 0 && r.fundingInterval % 60 === 0) intervals.set(r.symbol, r.fundingInterval / 60);
        else sink.reject('values', `${r.symbol}: funding interval of ${r.fundingInterval} minutes is not whole hours`);
      }
      cursor = answer.cursor !== cursor ? answer.cursor : '';
    } while (cursor);
    if (intervals.size > 0) this.instruments = { at: now, intervals };
    return intervals;
  }

  async candles(symbol: string, tf: CandleTimeframe, startMs: number, endMs: number): Promise<CandlePage> {
    const json = await this.http.json({
      method: 'GET',
      path: '/v5/market/kline',
      query: { category: 'linear', symbol, interval: INTERVALS[tf], start: startMs, end: endMs, limit: KLINES_LIMIT },
      weight: 1,
    });
    const sink = new RowSink(this.id, this.o.observer);
    const answer = resultList(sink, json, 'kline');
    if (!answer) return { rows: [], rejectedTimes: null };
    // Newest first, beginning with the candle still open: only those closed by now are kept.
    const page = sink.candlePage(answer.list, { what: 'kline', noun: 'kline', tf, startMs, endMs, closedBy: this.o.now(), scale: this.scales.get(symbol) }, (raw) => {
      const k = sink.parse(klineRow, raw, (r) => (Array.isArray(r) ? Number(r[0]) : undefined));
      return k && { time: k[0], open: k[1], high: k[2], low: k[3], close: k[4], volume: k[5], quoteVolume: k[6] };
    });
    return { rows: page.rows.sort((a, b) => a.time - b.time), rejectedTimes: page.rejectedTimes };
  }

  /**
   * Settlements in [startMs, endMs ?? now], each its hour's, ascending. Asked by `endTime` alone
   * (the documented 200 up to it, newest first), walked back until a page reaches `startMs`:
   * which end of a longer [startTime, endTime] a page keeps is not documented.
   */
  async funding(symbol: string, startMs: number, endMs?: number): Promise<FundingRateInput[]> {
    const sink = new RowSink(this.id, this.o.observer);
    const byHour = new Map<number, FundingRateInput>();
    let to = endMs ?? this.o.now();
    while (to >= startMs) {
      const json = await this.http.json({ method: 'GET', path: '/v5/market/funding/history', query: { category: 'linear', symbol, endTime: to, limit: FUNDING_PAGE }, weight: 1 });
      const answer = resultList(sink, json, 'funding/history');
      if (!answer) break;
      let oldest = Infinity;
      for (const raw of answer.list) {
        const r = sink.parse(fundingRow, raw, (x) => Number((x as { fundingRateTimestamp?: unknown } | null)?.fundingRateTimestamp));
        if (!r) continue;
        oldest = Math.min(oldest, r.fundingRateTimestamp);
        if (r.fundingRateTimestamp < startMs) continue; // the page reaches before the range
        if (r.symbol !== symbol || r.fundingRateTimestamp > to) {
          sink.reject('range', `funding of ${r.symbol} at ${r.fundingRateTimestamp}, asked ${symbol} up to ${to}`, r.fundingRateTimestamp);
          continue;
        }
        const row = sink.funding(r.fundingRateTimestamp, r.fundingRate);
        if (!row || row.time > this.o.now()) continue;
        if (byHour.has(row.time)) sink.reject('duplicate', `second funding settlement in hour ${row.time}`, r.fundingRateTimestamp);
        else byHour.set(row.time, row);
      }
      if (answer.list.length < FUNDING_PAGE || oldest > to || oldest <= startMs) break;
      to = oldest - 1;
    }
    return [...byHour.values()].sort((a, b) => a.time - b.time);
  }

  /** The context of `symbols` now: the REST ticker and the last closed minute's premium. */
  async contexts(symbols: readonly string[]): Promise<ContextUpdate[]> {
    const out: ContextUpdate[] = [];
    for (const symbol of symbols) {
      const sink = new RowSink(this.id, this.o.observer);
      const json = await this.http.json({ method: 'GET', path: '/v5/market/tickers', query: { category: 'linear', symbol }, weight: 1 });
      const raw = resultList(sink, json, 'tickers')?.list.find((t) => (t as { symbol?: unknown } | null)?.symbol === symbol);
      const t = raw === undefined ? null : sink.parse(tickerFields, raw, () => undefined);
      if (!t) continue;
      const k = mergeTicker({}, t);
      k.premium = await this.minutePremium(symbol, Math.floor(this.o.now() / MINUTE) * MINUTE - MINUTE);
      const c = knownContext(k);
      const context = c && sink.context(c, this.scales.get(symbol));
      if (context) out.push({ instrument: symbol, context });
    }
    return out;
  }

  /** Mark, index and premium of past minutes from their 1m klines (bybit-history.ts). */
  async pastContext(symbol: string, startMs: number, endMs: number): Promise<DerivativesInput[]> {
    return pastMinutes(this.historyAsk(symbol), startMs, endMs);
  }

  /** Open interest per 5 minutes (open-interest, intervalTime=5min). */
  async openInterestHistory(symbol: string, startMs: number, endMs: number): Promise<OpenInterestPoint[]> {
    return openInterestHistory(this.historyAsk(symbol), startMs, endMs);
  }

  private historyAsk(symbol: string) {
    return { http: this.http, sink: new RowSink(this.id, this.o.observer), symbol, scale: this.scales.get(symbol), now: this.o.now() };
  }

  /**
   * The premium index at the close of the minute opening at `minuteOpen`, asked up to `attempts`
   * times a second apart while the venue has not closed that kline; null if it never does.
   */
  private async minutePremium(symbol: string, minuteOpen: number, attempts = 1): Promise<string | null> {
    const sink = new RowSink(this.id, this.o.observer);
    const query = { category: 'linear', symbol, interval: '1', start: minuteOpen, end: minuteOpen, limit: 1 };
    for (let attempt = 1; ; attempt++) {
      const json = await this.http.json({ method: 'GET', path: '/v5/market/premium-index-price-kline', query, weight: 1 });
      for (const raw of resultList(sink, json, 'premium-index-price-kline')?.list ?? []) {
        const k = sink.parse(priceKlineRow, raw, (r) => (Array.isArray(r) ? Number(r[0]) : undefined));
        if (k && k[0] === minuteOpen) return k[4];
      }
      if (attempt >= attempts) return null;
      await new Promise((r) => setTimeout(r, PREMIUM_RETRY_MS));
    }
  }

  follow(symbols: readonly string[], h: CandleStreamHandlers): CandleStream {
    const sink = new RowSink(this.id, this.o.observer);
    const tickers = new Map<string, Ticker>(symbols.map((s) => [s, {}]));
    /** Instruments whose snapshot this connection has sent: deltas before it have nothing to merge into. */
    const snapshotted = new Set<string>();
    const emit = (symbol: string, atMs?: number) => {
      const c = knownContext(tickers.get(symbol)!);
      const context = c && sink.context(c, this.scales.get(symbol));
      if (context) h.onContext!({ instrument: symbol, context, ...(atMs === undefined ? {} : { atMs }) });
    };
    const stopPoll = h.onContext
      ? pollClosedMinutes(symbols, this.o.now, async (symbol, minuteOpen) => {
          const premium = await this.minutePremium(symbol, minuteOpen, PREMIUM_ATTEMPTS);
          // Down, or not yet snapshotted since a reconnect: the prices held are old, never a minute's.
          if (!snapshotted.has(symbol)) return;
          tickers.get(symbol)!.premium = premium;
          emit(symbol, minuteOpen + MINUTE - 1); // the values at the minute's close
        })
      : null;
    const topics = symbols.flatMap((s) => [`kline.1.${s}`, ...(h.onContext ? [`tickers.${s}`] : [])]);
    const socket = new VenueSocket({
      venue: this.id,
      url: this.o.wsUrl,
      timeoutMs: this.o.socketTimeoutMs,
      handlers: h,
      observer: this.o.observer,
      subscribe: (ws) => {
        snapshotted.clear();
        for (const symbol of symbols) tickers.set(symbol, { premium: tickers.get(symbol)!.premium });
        for (let i = 0; i < topics.length; i += TOPICS_PER_FRAME) ws.send(JSON.stringify({ op: 'subscribe', req_id: `mds-${i / TOPICS_PER_FRAME}`, args: topics.slice(i, i + TOPICS_PER_FRAME) }));
      },
      ping: (ws) => ws.send('{"op":"ping"}'),
      pingEveryMs: PING_EVERY_MS,
      onMessage: (msg) => {
        const m = msg as { topic?: unknown; op?: unknown; success?: unknown; ret_msg?: unknown } | null;
        if (m?.op === 'subscribe' && m.success === false) return sink.reject('range', `subscription refused: ${String(m.ret_msg)}`);
        if (typeof m?.topic !== 'string') return; // acknowledgements and pongs
        if (m.topic.startsWith('kline.')) return this.onKline(sink, msg, symbols, h);
        if (!m.topic.startsWith('tickers.') || !h.onContext) return;
        const t = sink.parse(tickersMessage, msg, () => undefined);
        if (!t || !tickers.has(t.data.symbol)) return;
        if (t.type === 'snapshot') snapshotted.add(t.data.symbol);
        else if (!snapshotted.has(t.data.symbol)) return;
        mergeTicker(tickers.get(t.data.symbol)!, t.data);
        emit(t.data.symbol);
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

  /** A kline push: each closed (`confirm`) 1m candle of a followed symbol to `h.onClosed`; open ones are ignored. */
  private onKline(sink: RowSink, msg: unknown, symbols: readonly string[], h: CandleStreamHandlers): void {
    const m = sink.parse(klineMessage, msg, () => undefined);
    if (!m) return;
    const symbol = m.topic.slice('kline.1.'.length);
    for (const k of m.data) {
      if (!k.confirm) continue; // still open: only closed klines are stored
      if (!m.topic.startsWith('kline.1.') || !symbols.includes(symbol) || k.interval !== '1') {
        sink.reject('range', `kline of ${m.topic} interval ${k.interval} not subscribed`, k.start);
        continue;
      }
      const row = sink.candle({ time: k.start, open: k.open, high: k.high, low: k.low, close: k.close, volume: k.volume, quoteVolume: k.turnover }, '1m', this.scales.get(symbol));
      if (row) h.onClosed({ instrument: symbol, candle: row });
    }
  }

  close(): void {
    this.http.close();
  }
}
