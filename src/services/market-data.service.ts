/**
 * Candles, funding, multi-asset series and market discovery: the domain behind
 * /v1/ohlcv, /v1/funding, /v1/multi-asset, /v1/markets and the GraphQL `market`,
 * `markets` and `multiAsset` fields. Every method takes the caller explicitly, validates
 * parameters (400) then tier rules (403), and reads through MarketRepository.
 *
 * The page methods take a list of queries so one call serves one REST request or a whole
 * batch of GraphQL fields: queries that share their parameters become one SQL statement.
 */
import { FUNDING_TIMEFRAME_FEATURES } from '../domain/feature-catalogue';
import { AppError } from '../domain/errors';
import * as P from '../domain/query-params';
import { DEFAULT_OHLCV_LIMIT, MAX_ROWS, type RawParams } from '../domain/query-params';
import { CANDLE_TIMEFRAMES, lastClosedOpen, type CandleTimeframe } from '../domain/timeframe';
import type { CandleRow, CoverageRow, FundingRow, MarketRepository, MultiAssetSource, SeriesRow } from '../db/market.repository';
import type { Principal } from './access/principal';
import { batchPages, page, type Page } from './batch-pages';

export type { Page };
import type { Exchanges } from './exchanges';
import type { TierPolicy } from './tier-policy';

export interface CandleQuery {
  exchange: string;
  symbol: string;
  timeframe: CandleTimeframe;
  start: number;
  end: number;
  limit: number;
}

export interface FundingQuery {
  exchange: string;
  symbol: string;
  start: number;
  end: number;
  normalized: boolean;
}

export interface MultiAssetQuery {
  exchange: string;
  symbols: string[];
  timeframe: CandleTimeframe;
  field: string;
  start: number;
  end: number;
}

/** One multi-asset row: time plus symbol -> value (absent when the symbol has none). */
export interface MultiAssetRow {
  time: string;
  values: Array<[symbol: string, value: string]>;
}

export interface MarketSummary {
  exchange: string;
  symbol: string;
  coverage: Array<{ timeframe: string; first: string | null; last: string | null }>;
}

const CANDLE_FIELDS = new Set(['open', 'high', 'low', 'close', 'volume']);

export class MarketDataService {
  /** exchange|symbol -> series id. Series are never deleted, so hits never go stale. */
  private readonly seriesCache = new Map<string, number>();

  constructor(
    private readonly repo: MarketRepository,
    private readonly exchanges: Exchanges,
    private readonly tiers: TierPolicy,
    private readonly clock: () => number = Date.now,
  ) {}

  // ---- validation: one place for both transports ------------------------------------------

  /** The parameters of each read, in the order they are checked (the OpenAPI document lists these). */
  get params() {
    return {
      ohlcv: [P.SYMBOL, this.exchanges.param, P.TIMEFRAME, P.START, P.END, P.OHLCV_LIMIT],
      funding: [P.SYMBOL, this.exchanges.param, P.START, P.END, P.NORMALIZED],
      multiAsset: [P.SYMBOLS, this.exchanges.param, P.TIMEFRAME, P.FIELD, P.START, P.END],
      markets: [this.exchanges.optionalParam],
    };
  }

  candleQuery(caller: Principal, raw: RawParams): CandleQuery {
    const symbol = P.need(P.SYMBOL, raw);
    const exchange = P.need(this.exchanges.param, raw);
    const timeframe = P.need(P.TIMEFRAME, raw);
    const { start, end } = P.timeRange(raw, this.clock());
    const limit = P.read(P.OHLCV_LIMIT, raw) ?? DEFAULT_OHLCV_LIMIT;
    this.tiers.requireTimeframe(caller.tier, timeframe);
    this.tiers.requireWindow(caller.tier, start, end);
    return { exchange, symbol, timeframe, start, end, limit };
  }

  fundingQuery(caller: Principal, raw: RawParams): FundingQuery {
    const symbol = P.need(P.SYMBOL, raw);
    const exchange = this.exchanges.onlyPerp(P.need(this.exchanges.param, raw));
    const { start, end } = P.timeRange(raw, this.clock());
    const normalized = P.read(P.NORMALIZED, raw) ?? false;
    this.tiers.requireWindow(caller.tier, start, end);
    return { exchange, symbol, start, end, normalized };
  }

  multiAssetQuery(caller: Principal, raw: RawParams): MultiAssetQuery {
    const symbols = P.readList(P.SYMBOLS, raw);
    const exchange = P.need(this.exchanges.param, raw);
    const timeframe = P.need(P.TIMEFRAME, raw);
    const field = P.need(P.FIELD, raw);
    this.sourceOf(field, exchange, timeframe); // the field against venue and timeframe
    const { start, end } = P.timeRange(raw, this.clock());
    this.tiers.requireSymbolCount(caller.tier, symbols.length);
    this.tiers.requireTimeframe(caller.tier, timeframe);
    this.tiers.requireWindow(caller.tier, start, end);
    return { exchange, symbols, timeframe, field, start, end };
  }

  private sourceOf(field: string, exchange: string, timeframe: CandleTimeframe): MultiAssetSource {
    if (CANDLE_FIELDS.has(field)) return { table: 'candles', column: field, places: 6, timeframe };
    const hourlyOnly = (what: string) => {
      if (exchange !== this.exchanges.perp) {
        throw new AppError('INVALID_EXCHANGE', `${what} exists on the perpetual venue only; use exchange=${this.exchanges.perp}`, {
          parameter: 'exchange',
        });
      }
      if (timeframe !== '1h') {
        throw new AppError('INVALID_PARAMETER', `field ${field} is hourly: use timeframe=1h`, { parameter: 'field' });
      }
    };
    if (field === 'funding_rate') {
      hourlyOnly('funding');
      return { table: 'funding_rates', column: 'rate', places: 8, timeframe: null };
    }
    if (FUNDING_TIMEFRAME_FEATURES.has(field)) {
      hourlyOnly(`feature ${field}`);
      return { table: 'features', column: field, places: 6, timeframe: 'funding' };
    }
    return { table: 'features', column: field, places: 6, timeframe };
  }

  // ---- reads ------------------------------------------------------------------------------

  /** Series ids keyed `exchange|symbol` (for sibling services reading other tables). */
  resolveSeries(pairs: ReadonlyArray<{ exchange: string; symbol: string }>): Promise<Map<string, number>> {
    return this.seriesIds(pairs);
  }

  /** Series ids for (exchange, symbol) pairs; unknown pairs are absent. One query per miss batch. */
  private async seriesIds(pairs: ReadonlyArray<{ exchange: string; symbol: string }>): Promise<Map<string, number>> {
    const key = (e: string, s: string) => `${e}|${s}`;
    const missing = new Map<string, Set<string>>();
    for (const p of pairs) {
      if (!this.seriesCache.has(key(p.exchange, p.symbol))) {
        let set = missing.get(p.exchange);
        if (!set) missing.set(p.exchange, (set = new Set()));
        set.add(p.symbol);
      }
    }
    for (const [exchange, symbols] of missing) {
      for (const row of await this.repo.seriesIds(exchange, [...symbols])) this.seriesCache.set(key(row.exchange, row.symbol), row.id);
    }
    const out = new Map<string, number>();
    for (const p of pairs) {
      const id = this.seriesCache.get(key(p.exchange, p.symbol));
      if (id !== undefined) out.set(key(p.exchange, p.symbol), id);
    }
    return out;
  }

  /** Candle pages, one per query, in order. Only closed candles are served. */
  async candlePages(queries: readonly CandleQuery[]): Promise<Array<Page<CandleRow>>> {
    const ids = await this.seriesIds(queries);
    const now = this.clock();
    const endOf = (q: CandleQuery) => Math.min(q.end, lastClosedOpen(now, q.timeframe));
    return batchPages(queries, {
      idOf: (q) => ids.get(`${q.exchange}|${q.symbol}`),
      keyOf: (q) => (q.start > endOf(q) ? null : `${q.timeframe}|${q.start}|${endOf(q)}|${q.limit}`),
      limitOf: (q) => q.limit,
      fetch: (q, series, limit) => this.repo.candles(series, q.timeframe, new Date(q.start), new Date(endOf(q)), limit),
    });
  }

  async fundingPages(queries: readonly FundingQuery[]): Promise<Array<Page<FundingRow>>> {
    const spotPairs = queries.filter((q) => q.normalized).map((q) => ({ exchange: this.exchanges.spot, symbol: q.symbol }));
    const ids = await this.seriesIds([...queries, ...spotPairs]);
    const idOf = (q: FundingQuery) => ids.get(`${q.exchange}|${q.symbol}`);
    // perp series -> spot series of the same symbol (premium), for normalized queries
    const spotOf = new Map(queries.map((q) => [idOf(q), ids.get(`${this.exchanges.spot}|${q.symbol}`) ?? null]));
    return batchPages(queries, {
      idOf,
      keyOf: (q) => `${q.start}|${q.end}|${q.normalized}`,
      limitOf: () => MAX_ROWS,
      fetch: (q, series, limit) =>
        q.normalized
          ? this.repo.fundingNormalized(series.map((id) => [id, spotOf.get(id) ?? null] as [number, number | null]), new Date(q.start), new Date(q.end), limit)
          : this.repo.funding(series, new Date(q.start), new Date(q.end), limit),
    });
  }

  async multiAsset(q: MultiAssetQuery): Promise<Page<MultiAssetRow>> {
    const ids = await this.seriesIds(q.symbols.map((symbol) => ({ exchange: q.exchange, symbol })));
    const symbolOf = new Map<number, string>();
    for (const s of q.symbols) {
      const id = ids.get(`${q.exchange}|${s}`);
      if (id !== undefined) symbolOf.set(id, s);
    }
    if (symbolOf.size === 0) return { count: 0, next_start: null, data: [] };
    const source = this.sourceOf(q.field, q.exchange, q.timeframe);
    // Candle values and the technical features computed on them: closed periods only.
    const end = source.timeframe === q.timeframe ? Math.min(q.end, lastClosedOpen(this.clock(), q.timeframe)) : q.end;
    if (q.start > end) return { count: 0, next_start: null, data: [] };
    const flat = await this.repo.multiAsset([...symbolOf.keys()], source, new Date(q.start), new Date(end), MAX_ROWS + 1);
    const order = new Map(q.symbols.map((s, i) => [s, i]));
    const rows: MultiAssetRow[] = [];
    for (const r of flat) {
      let last = rows[rows.length - 1];
      if (!last || last.time !== r.time) rows.push((last = { time: r.time, values: [] }));
      last.values.push([symbolOf.get(r.series_id)!, r.value!]);
    }
    for (const r of rows) r.values.sort((a, b) => order.get(a[0])! - order.get(b[0])!);
    return page(rows, MAX_ROWS);
  }

  /** Every market (optionally of one venue) with the first and last time per timeframe. */
  async markets(raw: RawParams): Promise<MarketSummary[]> {
    const venue = P.read(this.exchanges.optionalParam, raw) ?? null;
    const series = await this.repo.listSeries(venue);
    for (const row of series) this.seriesCache.set(`${row.exchange}|${row.symbol}`, row.id);
    return this.summaries(series);
  }

  /** Summaries for named markets, in order; an unknown market has empty coverage. */
  async summariesOf(refs: ReadonlyArray<{ exchange: string; symbol: string }>): Promise<MarketSummary[]> {
    const ids = await this.seriesIds(refs);
    const known: SeriesRow[] = [];
    for (const r of refs) {
      const id = ids.get(`${r.exchange}|${r.symbol}`);
      if (id !== undefined) known.push({ id, exchange: r.exchange, symbol: r.symbol });
    }
    const byKey = new Map((await this.summaries(known)).map((s) => [`${s.exchange}|${s.symbol}`, s]));
    return refs.map((r) => byKey.get(`${r.exchange}|${r.symbol}`) ?? { exchange: r.exchange, symbol: r.symbol, coverage: [] });
  }

  /** Validate a market named by the caller (GraphQL `market(exchange, symbol)`). */
  marketRef(raw: RawParams): { exchange: string; symbol: string } {
    return {
      symbol: P.need(P.SYMBOL, raw),
      exchange: P.need(this.exchanges.param, raw),
    };
  }

  async summaries(series: readonly SeriesRow[]): Promise<MarketSummary[]> {
    const coverage = series.length ? await this.repo.coverage(series.map((s) => s.id), new Date(this.clock())) : [];
    const byId = new Map<number, CoverageRow[]>();
    for (const c of coverage) {
      if (c.first === null) continue;
      let l = byId.get(c.series_id);
      if (!l) byId.set(c.series_id, (l = []));
      l.push(c);
    }
    const order = [...CANDLE_TIMEFRAMES, 'funding'];
    return series.map((s) => ({
      exchange: s.exchange,
      symbol: s.symbol,
      coverage: (byId.get(s.id) ?? [])
        .sort((a, b) => order.indexOf(a.timeframe) - order.indexOf(b.timeframe))
        .map((c) => ({ timeframe: c.timeframe, first: c.first, last: c.last })),
    }));
  }
}
