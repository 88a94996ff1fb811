/** Market discovery (GET /v1/markets, GraphQL `markets`, `market`, `coverage`). */
import type { CandlesRepository, CoverageRow } from '../db/candles.repository';
import { marketKey, type SeriesRepository, type SeriesRow } from '../db/series.repository';
import type { MarketRef, MarketSummary } from '../domain/market';
import type { RawParams } from '../domain/params/param';
import type { MarketReads } from '../domain/params/reads';
import { FEATURE_TIMEFRAMES } from '../domain/timeframe';

export class MarketsService {
  constructor(
    private readonly reads: Pick<MarketReads, 'markets' | 'market'>,
    private readonly series: SeriesRepository,
    private readonly candles: CandlesRepository,
    private readonly clock: () => number,
  ) {}

  /** A market named by the caller (GraphQL `market(exchange, symbol)`), validated. */
  parseMarket(raw: RawParams): MarketRef {
    return this.reads.market.parse(raw, this.clock());
  }

  /** Every market (of one venue when asked) with the first and last time per timeframe. */
  async list(raw: RawParams): Promise<MarketSummary[]> {
    const { exchange } = this.reads.markets.parse(raw, this.clock());
    return this.summaries(await this.series.list(exchange));
  }

  /** Summaries of named markets, in order; an unknown market has empty coverage. */
  async summariesOf(refs: readonly MarketRef[]): Promise<MarketSummary[]> {
    const ids = await this.series.idsOf(refs);
    const known: SeriesRow[] = [];
    for (const r of refs) {
      const id = ids.get(marketKey(r));
      if (id !== undefined) known.push({ id, exchange: r.exchange, symbol: r.symbol });
    }
    const byKey = new Map((await this.summaries(known)).map((s) => [marketKey(s), s]));
    return refs.map((r) => byKey.get(marketKey(r)) ?? { exchange: r.exchange, symbol: r.symbol, coverage: [] });
  }

  private async summaries(series: readonly SeriesRow[]): Promise<MarketSummary[]> {
    const coverage = series.length ? await this.candles.coverage(series.map((s) => s.id), new Date(this.clock())) : [];
    const byId = new Map<number, CoverageRow[]>();
    for (const c of coverage) {
      let l = byId.get(c.seriesId);
      if (!l) byId.set(c.seriesId, (l = []));
      l.push(c);
    }
    const rank = (tf: string) => (FEATURE_TIMEFRAMES as readonly string[]).indexOf(tf);
    return series.map((s) => ({
      exchange: s.exchange,
      symbol: s.symbol,
      coverage: (byId.get(s.id) ?? [])
        .sort((a, b) => rank(a.timeframe) - rank(b.timeframe))
        .map((c) => ({ timeframe: c.timeframe, first: c.first, last: c.last })),
    }));
  }
}
