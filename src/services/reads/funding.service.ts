/**
 * Hourly funding (GET /v1/funding, GraphQL `market.funding`), optionally with the 30-day
 * z-score and the perp/spot premium. Perpetual venue only.
 */
import type { FundingRepository } from '../../db/funding.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import type { FundingRate, FundingRequest, Page } from '../../domain/market';
import { MAX_ROWS } from '../../domain/params/market-params';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { Exchanges } from '../../domain/exchanges';
import type { Principal } from '../access/principal';
import { batchPages, onePage } from './batch-pages';
import type { WatermarkScope } from './page-tags.service';
import type { TierPolicy } from '../access/tier-policy';

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

  /** The page of a validated request. */
  async page(request: FundingRequest): Promise<Page<FundingRate>> {
    return (await onePage(request, (qs) => this.pages(qs))).page;
  }

  /**
   * What the page of `request` is read from (its write watermark's scope); null: a market with no
   * rows. Normalized: the z-score's 719 earlier rates (any age) and both exchanges' 1h closes.
   */
  async scope(request: FundingRequest): Promise<WatermarkScope | null> {
    const spot = { exchange: this.exchanges.spot, symbol: request.symbol };
    const ids = await this.series.idsOf(request.normalized ? [request, spot] : [request]);
    const id = ids.get(marketKey(request));
    if (id === undefined) return null;
    if (!request.normalized) return { seriesIds: [id], timeframes: ['funding'], startMs: request.start, endMs: request.end };
    const spotId = ids.get(marketKey(spot));
    return { seriesIds: spotId === undefined ? [id] : [id, spotId], timeframes: ['funding', '1h'], startMs: 0, endMs: request.end };
  }

  async pages(requests: readonly FundingRequest[]): Promise<Array<Page<FundingRate>>> {
    const spotOfSymbol = (symbol: string) => ({ exchange: this.exchanges.spot, symbol });
    const ids = await this.series.idsOf([...requests, ...requests.filter((q) => q.normalized).map((q) => spotOfSymbol(q.symbol))]);
    const idOf = (q: FundingRequest) => ids.get(marketKey(q));
    // perp series -> spot series of the same symbol (the premium), for normalized requests
    const spotOf = new Map(requests.map((q) => [idOf(q), ids.get(marketKey(spotOfSymbol(q.symbol))) ?? null]));
    return batchPages(requests, {
      idOf,
      keyOf: (q) => `${q.start}|${q.end}|${q.normalized}`,
      limitOf: () => MAX_ROWS,
      fetch: (q, series, limit) =>
        q.normalized
          ? this.funding.normalizedPages(series.map((id) => [id, spotOf.get(id) ?? null] as [number, number | null]), new Date(q.start), new Date(q.end), limit)
          : this.funding.pages(series, new Date(q.start), new Date(q.end), limit),
    });
  }
}
