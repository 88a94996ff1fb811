/**
 * Serving pre-computed features (GET /v1/features, GraphQL `market.features`) and the
 * catalogue (GET /v1/features/available, GraphQL `featureCatalogue`). Computing them is
 * FeaturePrecomputeService's job.
 */
import type { FeaturesRepository } from '../../db/features.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import { FEATURE_CATALOGUE, type FeatureEntry } from '../../domain/feature-catalogue';
import type { FeatureRequest, FeatureRow, Page } from '../../domain/market';
import { MAX_ROWS } from '../../domain/params/market-params';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import { closedEnd } from '../../domain/timeframe';
import type { Principal } from '../access/principal';
import { batchPages, onePage } from './batch-pages';
import type { WatermarkScope } from './page-tags.service';
import type { TierPolicy } from '../access/tier-policy';

export class FeatureReadService {
  constructor(
    private readonly endpoint: MarketEndpoints['features'],
    private readonly series: SeriesRepository,
    private readonly features: FeaturesRepository,
    private readonly tiers: TierPolicy,
    private readonly clock: () => number,
  ) {}

  catalogue(): readonly FeatureEntry[] {
    return FEATURE_CATALOGUE;
  }

  parseRequest(caller: Principal, raw: RawParams): FeatureRequest {
    const q = this.endpoint.parse(raw, this.clock());
    // Timeframe funding is exempt from granularity and window rules (spec part 8, rules 2 and 4).
    if (q.timeframe !== 'funding') {
      this.tiers.requireTimeframe(caller.tier, q.timeframe);
      this.tiers.requireWindow(caller.tier, q.start, q.end);
    }
    return q;
  }

  /**
   * One page with each row already rendered as its JSON object (the row's own keys: `time` and
   * the feature names), for the JSON representation: the fast path of GET /v1/features.
   */
  async pageAsJson(request: FeatureRequest, now: number): Promise<Page<string>> {
    const [p] = await this.batched(
      [request],
      async (q, [id], end, limit) => new Map([[id, await this.features.pageAsJson(id, q.timeframe, q.names, new Date(q.start), end, limit)]]),
      now,
    );
    return { ...p, data: p.data.map((r) => r.json) };
  }

  /** The page of a validated request at `now`. */
  async page(request: FeatureRequest, now: number): Promise<Page<FeatureRow>> {
    return (await onePage(request, (qs) => this.pages(qs, now))).page;
  }

  /** What the page of `request` at `now` is read from (its write watermark's scope); null: a market with no rows. */
  async scope(request: FeatureRequest, now: number): Promise<WatermarkScope | null> {
    const id = (await this.series.idsOf([request])).get(marketKey(request));
    if (id === undefined) return null;
    return { seriesIds: [id], timeframes: [request.timeframe], startMs: request.start, endMs: closedEnd(request.end, request.timeframe, now) };
  }

  /** Pages, one per request, in order; requests sharing their parameters share one statement. */
  pages(requests: readonly FeatureRequest[], now = this.clock()): Promise<Array<Page<FeatureRow>>> {
    return this.batched(requests, (q, ids, end, limit) => this.features.pages(ids, q.timeframe, q.names, new Date(q.start), end, limit), now);
  }

  /** Batched pages with rows from `fetch`: candle timeframes end at the last closed candle. */
  private async batched<Row extends { time: string }>(
    requests: readonly FeatureRequest[],
    fetch: (q: FeatureRequest, ids: number[], end: Date, limit: number) => Promise<Map<number, Row[]>>,
    now: number,
  ): Promise<Array<Page<Row>>> {
    const ids = await this.series.idsOf(requests);
    const endOf = (q: FeatureRequest) => closedEnd(q.end, q.timeframe, now);
    return batchPages(requests, {
      idOf: (q) => ids.get(marketKey(q)),
      keyOf: (q) => (q.start > endOf(q) ? null : `${q.timeframe}|${q.start}|${endOf(q)}|${q.names.join(',')}`),
      limitOf: () => MAX_ROWS,
      fetch: (q, series, limit) => fetch(q, series, new Date(endOf(q)), limit),
    });
  }
}
