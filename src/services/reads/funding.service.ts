/**
 * Hourly funding (GET /v1/funding, GraphQL `market.funding`), optionally with the 30-day
 * z-score and the perp/spot premium. Perpetual venue only.
 */
import type { FundingRepository } from '../../db/funding.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import { emptyPage, type FundingRate, type FundingRequest, type Page } from '../../domain/market';
import { MAX_ROWS } from '../../domain/params/market-params';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { Exchanges } from '../../domain/exchanges';
import type { Principal } from '../access/principal';
import type { TierPolicy } from '../access/tier-policy';
import { batchPages } from './batch-pages';
import type { ReadPlan } from './read-plan';

export interface FundingPlan extends ReadPlan<FundingRequest, Page<FundingRate>> {
  readonly seriesId: number | null;
  /** The spot series of its symbol (the premium of a normalized read); null: none. */
  readonly spotId: number | null;
}

export class FundingService {
  constructor(
    private readonly endpoint: MarketEndpoints['funding'],
    private readonly exchanges: Exchanges,
    private readonly series: SeriesRepository,
    private readonly funding: FundingRepository,
    private readonly tiers: TierPolicy,
    private readonly clock: () => number,
  ) {}

  parseRequest(caller: Principal, raw: RawParams): FundingRequest {
    const q = this.endpoint.parse(raw, this.clock());
    this.tiers.requireWindow(caller.tier, q.start, q.end);
    return q;
  }

  /**
   * The read plan of a validated request. Normalized, its rows also depend on the z-score's 719
   * earlier rates (any age) and both exchanges' 1h closes.
   */
  async plan(request: FundingRequest, now = this.clock()): Promise<FundingPlan> {
    const spot = { exchange: this.exchanges.spot, symbol: request.symbol };
    const ids = await this.series.idsOf(request.normalized ? [request, spot] : [request]);
    const seriesId = ids.get(marketKey(request)) ?? null;
    const spotId = request.normalized ? (ids.get(marketKey(spot)) ?? null) : null;
    const scope =
      seriesId === null
        ? null
        : request.normalized
          ? { seriesIds: spotId === null ? [seriesId] : [seriesId, spotId], timeframes: ['funding', '1h'] as const, startMs: 0, endMs: request.end }
          : { seriesIds: [seriesId], timeframes: ['funding'] as const, startMs: request.start, endMs: request.end };
    return {
      request,
      now,
      timeframe: 'funding',
      seriesId,
      spotId,
      scope,
      read: async () => {
        if (seriesId === null) return { page: emptyPage<FundingRate>(), mark: null };
        const normalized = request.normalized ? { spot: spotId, maxHours: this.exchanges.fundingMaxHours(request.exchange) } : null;
        return this.funding.page(seriesId, normalized, new Date(request.start), new Date(request.end), MAX_ROWS, scope);
      },
    };
  }

  /** The pages of several plans, in order; plans sharing their parameters share one statement. */
  readMany(plans: readonly FundingPlan[]): Promise<Array<Page<FundingRate>>> {
    const spotOf = new Map(plans.map((p) => [p.seriesId, p.spotId]));
    return batchPages(plans, {
      idOf: (p) => p.seriesId,
      keyOf: (p) => `${p.request.start}|${p.request.end}|${p.request.normalized}`,
      limitOf: () => MAX_ROWS,
      fetch: (p, ids, limit) =>
        p.request.normalized
          ? this.funding.normalizedPages(
              ids.map((id) => ({ id, spot: spotOf.get(id) ?? null, maxHours: this.exchanges.fundingMaxHours(p.request.exchange) })),
              new Date(p.request.start),
              new Date(p.request.end),
              limit,
            )
          : this.funding.pages(ids, new Date(p.request.start), new Date(p.request.end), limit),
      timeOf: (r) => r.time,
    });
  }
}
