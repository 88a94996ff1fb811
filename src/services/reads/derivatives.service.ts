/**
 * A perpetual's context per period (GET /v1/derivatives, GraphQL `market.derivatives`): the
 * endpoint's rules (the spot exchange refused), the caller's plan (the free tier's timeframes
 * and window, as candles), the pages. Periods are served once closed, like candles.
 */
import type { DerivativesRepository } from '../../db/derivatives.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import type { Derivatives, DerivativesRequest, Page } from '../../domain/market';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import { closedEnd } from '../../domain/timeframe';
import type { Principal } from '../access/principal';
import { batchPages, onePage } from './batch-pages';
import type { WatermarkScope } from './page-tags.service';
import type { TierPolicy } from '../access/tier-policy';

export class DerivativesService {
  constructor(
    private readonly endpoint: MarketEndpoints['derivatives'],
    private readonly series: SeriesRepository,
    private readonly derivatives: DerivativesRepository,
    private readonly tiers: TierPolicy,
    private readonly clock: () => number,
  ) {}

  /** Validate a read (400s) and check it against the caller's plan (403). */
  parseRequest(caller: Principal, raw: RawParams): DerivativesRequest {
    const q = this.endpoint.parse(raw, this.clock());
    this.tiers.requireTimeframe(caller.tier, q.timeframe);
    this.tiers.requireWindow(caller.tier, q.start, q.end);
    return q;
  }

  /** The page of a validated request at `now`. */
  async page(request: DerivativesRequest, now: number): Promise<Page<Derivatives>> {
    return (await onePage(request, (qs) => this.pages(qs, now))).page;
  }

  /** What the page of `request` at `now` is read from (its write watermark's scope); null: a market with no rows. */
  async scope(request: DerivativesRequest, now: number): Promise<WatermarkScope | null> {
    const id = (await this.series.idsOf([request])).get(marketKey(request));
    if (id === undefined) return null;
    return { seriesIds: [id], timeframes: [request.timeframe], startMs: request.start, endMs: closedEnd(request.end, request.timeframe, now) };
  }

  /** Pages, one per request, in order; requests sharing their parameters share one statement. */
  async pages(requests: readonly DerivativesRequest[], now = this.clock()): Promise<Array<Page<Derivatives>>> {
    const ids = await this.series.idsOf(requests);
    const endOf = (q: DerivativesRequest) => closedEnd(q.end, q.timeframe, now);
    return batchPages(requests, {
      idOf: (q) => ids.get(marketKey(q)),
      keyOf: (q) => (q.start > endOf(q) ? null : `${q.timeframe}|${q.start}|${endOf(q)}|${q.limit}`),
      limitOf: (q) => q.limit,
      fetch: (q, series, limit) => this.derivatives.pages(series, q.timeframe, new Date(q.start), new Date(endOf(q)), limit),
    });
  }
}
