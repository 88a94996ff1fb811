/**
 * A perpetual's context per period (GET /v1/derivatives, GraphQL `market.derivatives`): the
 * endpoint's rules (the spot exchange refused), the caller's plan (the free tier's timeframes
 * and window, as candles), the read plan. Periods are served once closed, like candles.
 */
import type { DerivativesRepository } from '../../db/derivatives.repository';
import type { SeriesRepository } from '../../db/series.repository';
import { emptyPage, type Derivatives, type DerivativesRequest, type Page } from '../../domain/market';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { Principal } from '../access/principal';
import type { TierPolicy } from '../access/tier-policy';
import { batchPages } from './batch-pages';
import { seriesWindow, type ReadPlan } from './read-plan';

export interface DerivativesPlan extends ReadPlan<DerivativesRequest, Page<Derivatives>> {
  readonly seriesId: number | null;
  /** The end its rows are cut at: the last closed period at `now`. */
  readonly end: number;
}

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

  /** The read plan of a validated request at `now`. */
  async plan(request: DerivativesRequest, now = this.clock()): Promise<DerivativesPlan> {
    const { seriesId, end, scope } = await seriesWindow(this.series, request, request.timeframe, now);
    return {
      request,
      now,
      timeframe: request.timeframe,
      seriesId,
      end,
      scope,
      read: async () => {
        if (seriesId === null) return { page: emptyPage<Derivatives>(), mark: null };
        return this.derivatives.page(seriesId, request.timeframe, new Date(request.start), new Date(end), request.limit, scope);
      },
    };
  }

  /** The pages of several plans, in order; plans sharing their parameters share one statement. */
  readMany(plans: readonly DerivativesPlan[]): Promise<Array<Page<Derivatives>>> {
    return batchPages(plans, {
      idOf: (p) => (p.request.start > p.end ? null : p.seriesId),
      keyOf: (p) => `${p.request.timeframe}|${p.request.start}|${p.end}|${p.request.limit}`,
      limitOf: (p) => p.request.limit,
      fetch: (p, ids, limit) => this.derivatives.pages(ids, p.request.timeframe, new Date(p.request.start), new Date(p.end), limit),
      timeOf: (r) => r.time,
    });
  }
}
