/**
 * Serving pre-computed features (GET /v1/features, GraphQL `market.features`) and the
 * catalogue (GET /v1/features/available, GraphQL `featureCatalogue`). Computing them is
 * FeaturePrecomputeService's job.
 */
import type { FeaturesRepository } from '../../db/features.repository';
import type { SeriesRepository } from '../../db/series.repository';
import { FEATURE_CATALOGUE, type FeatureEntry } from '../../domain/feature-catalogue';
import { emptyPage, type FeatureRequest, type FeatureRow, type Page } from '../../domain/market';
import { MAX_ROWS } from '../../domain/params/market-params';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { Principal } from '../access/principal';
import type { TierPolicy } from '../access/tier-policy';
import { batchPages } from './batch-pages';
import { seriesWindow, type Marked, type ReadPlan } from './read-plan';

/** A row rendered by the database into a serializer's template, and its time. */
export interface RenderedRow {
  time: string;
  text: string;
}

export interface FeaturePlan extends ReadPlan<FeatureRequest, Page<FeatureRow>> {
  readonly seriesId: number | null;
  /** The end its rows are cut at: candle timeframes end at the last closed candle at `now`. */
  readonly end: number;
  /**
   * The same page with each row rendered by the database into `template` (FeaturesRepository.renderedPage):
   * the JSON representation's read, with no object per row.
   */
  readRendered(template: readonly string[]): Promise<Marked<Page<RenderedRow>>>;
}

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

  /** The read plan of a validated request at `now`. */
  async plan(request: FeatureRequest, now = this.clock()): Promise<FeaturePlan> {
    const { seriesId, end, scope } = await seriesWindow(this.series, request, request.timeframe, now);
    const { timeframe, names, start } = request;
    return {
      request,
      now,
      timeframe,
      seriesId,
      end,
      scope,
      read: async () => {
        if (seriesId === null) return { page: emptyPage<FeatureRow>(), mark: null };
        return this.features.page(seriesId, timeframe, names, new Date(start), new Date(end), MAX_ROWS, scope);
      },
      readRendered: async (template) => {
        if (seriesId === null) return { page: emptyPage<RenderedRow>(), mark: null };
        return this.features.renderedPage(seriesId, timeframe, names, template, new Date(start), new Date(end), MAX_ROWS, scope);
      },
    };
  }

  /** The pages of several plans, in order; plans sharing their parameters share one statement. */
  readMany(plans: readonly FeaturePlan[]): Promise<Array<Page<FeatureRow>>> {
    return batchPages(plans, {
      idOf: (p) => (p.request.start > p.end ? null : p.seriesId),
      keyOf: (p) => `${p.request.timeframe}|${p.request.start}|${p.end}|${p.request.names.join(',')}`,
      limitOf: () => MAX_ROWS,
      fetch: (p, ids, limit) => this.features.pages(ids, p.request.timeframe, p.request.names, new Date(p.request.start), new Date(p.end), limit),
      timeOf: (r) => r.time,
    });
  }
}
