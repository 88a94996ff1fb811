/** Market discovery (GET /v1/markets, GraphQL `markets`, `market`, `coverage`). */
import type { CandlesRepository, CoverageRow } from '../../db/candles.repository';
import type { IngestRepository } from '../../db/ingest.repository';
import { marketKey, type SeriesRepository, type SeriesRow } from '../../db/series.repository';
import { ingestLagSeconds, type IngestState, type MarketRef, type MarketSummary } from '../../domain/market';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { Exchanges } from '../../domain/exchanges';
import { FEATURE_TIMEFRAMES } from '../../domain/timeframe';
import { formatTimestamp } from '../../domain/time';

/** Coverage entries in this order: candle timeframes, funding, then the perpetual's context. */
const COVERAGE_ORDER: readonly string[] = [...FEATURE_TIMEFRAMES, 'derivatives'];

/** A report older than this means the ingesting process is gone: shown as not connected. */
export const INGEST_REPORT_STALE_MS = 30_000;

/** A perpetual's current funding interval, from its coverage's funding row. */
function fundingInterval(coverage: readonly CoverageRow[] = []): { fundingIntervalHours?: number } {
  const hours = coverage.find((c) => c.timeframe === 'funding')?.hours;
  return hours === null || hours === undefined ? {} : { fundingIntervalHours: hours };
}

export class MarketsService {
  constructor(
    private readonly endpoints: Pick<MarketEndpoints, 'markets' | 'market'>,
    private readonly exchanges: Exchanges,
    private readonly series: SeriesRepository,
    private readonly candles: CandlesRepository,
    private readonly ingest: Pick<IngestRepository, 'status'>,
    private readonly clock: () => number,
  ) {}

  /** The ingestion state of each market, in order; null for a market nothing ingests. */
  async ingestOf(refs: readonly MarketRef[]): Promise<Array<IngestState | null>> {
    const ids = await this.series.idsOf(refs);
    const now = this.clock();
    const status = await this.ingest.status([...new Set(ids.values())], new Date(now));
    return refs.map((r) => {
      const id = ids.get(marketKey(r));
      const s = id === undefined ? undefined : status.get(id);
      if (!s) return null;
      return {
        connected: s.connected && now - s.reportedAt <= INGEST_REPORT_STALE_MS,
        lastClosed: s.lastClosed === null ? null : formatTimestamp(s.lastClosed),
        lag: s.lastClosed === null ? null : ingestLagSeconds(s.lastClosed, now),
      };
    });
  }

  /** A market named by the caller (GraphQL `market(exchange, symbol)`), validated. */
  parseMarket(raw: RawParams): MarketRef {
    return this.endpoints.market.parse(raw, this.clock());
  }

  /** Every market of the served exchanges (of one when asked) with the first and last time per timeframe. */
  async list(raw: RawParams): Promise<MarketSummary[]> {
    const { exchange } = this.endpoints.markets.parse(raw, this.clock());
    return this.summaries(await this.series.list(exchange === null ? this.exchanges.names : [exchange]));
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
    const rank = (tf: string) => COVERAGE_ORDER.indexOf(tf);
    return series.map((s) => ({
      exchange: s.exchange,
      symbol: s.symbol,
      coverage: (byId.get(s.id) ?? [])
        .sort((a, b) => rank(a.timeframe) - rank(b.timeframe))
        .map((c) => ({ timeframe: c.timeframe, first: c.first, last: c.last })),
      ...fundingInterval(byId.get(s.id)),
    }));
  }
}
