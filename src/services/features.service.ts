/**
 * Pre-computed features in wide format (/v1/features, GraphQL `market.features`) and the
 * catalogue (/v1/features/available). Validation and tier rules live here, for both transports.
 */
import type { FeatureRow, MarketRepository } from '../db/market.repository';
import { AppError } from '../domain/errors';
import { FEATURE_CATALOGUE, FUNDING_TIMEFRAME_FEATURES, type FeatureInfo } from '../domain/feature-catalogue';
import * as P from '../domain/query-params';
import { MAX_ROWS, type RawParams } from '../domain/query-params';
import { lastClosedOpen, type CandleTimeframe } from '../domain/timeframe';
import type { Principal } from './access/principal';
import type { Exchanges } from './exchanges';
import { batchPages, type Page } from './batch-pages';
import type { MarketDataService } from './market-data.service';
import type { TierPolicy } from './tier-policy';

const CATALOGUE_JSON = JSON.stringify({ features: FEATURE_CATALOGUE });

export type FeatureTimeframe = CandleTimeframe | 'funding';

export interface FeatureQuery {
  exchange: string;
  symbol: string;
  timeframe: FeatureTimeframe;
  names: string[];
  start: number;
  end: number;
}

export class FeaturesService {
  constructor(
    private readonly repo: MarketRepository,
    private readonly market: MarketDataService,
    private readonly exchanges: Exchanges,
    private readonly tiers: TierPolicy,
    private readonly clock: () => number = Date.now,
  ) {}

  catalogue(): readonly FeatureInfo[] {
    return FEATURE_CATALOGUE;
  }

  /** `{"features":[...]}`, rendered once: the catalogue never changes while running. */
  catalogueJson(): string {
    return CATALOGUE_JSON;
  }

  /** The parameters of GET /v1/features, in the order they are checked. */
  get params() {
    return [P.SYMBOL, this.exchanges.param, P.FEATURE_TIMEFRAME, P.FEATURES, P.START, P.END];
  }

  featureQuery(caller: Principal, raw: RawParams): FeatureQuery {
    const symbol = P.need(P.SYMBOL, raw);
    const exchange = P.need(this.exchanges.param, raw);
    const timeframe: FeatureTimeframe = P.need(P.FEATURE_TIMEFRAME, raw);
    const names = P.readList(P.FEATURES, raw);
    const misplaced = names.filter((n) => FUNDING_TIMEFRAME_FEATURES.has(n) !== (timeframe === 'funding'));
    if (misplaced.length) {
      const where = timeframe === 'funding' ? 'a candle timeframe (1m to 1d)' : 'timeframe funding';
      throw new AppError('UNKNOWN_FEATURES', `${misplaced.join(', ')} ${misplaced.length > 1 ? 'are' : 'is'} served on ${where}, not on ${timeframe}`);
    }
    if (timeframe === 'funding' && exchange !== this.exchanges.perp) {
      throw new AppError('INVALID_EXCHANGE', `timeframe funding exists on the perpetual venue only; use exchange=${this.exchanges.perp}`, {
        parameter: 'exchange',
      });
    }
    const { start, end } = P.timeRange(raw, this.clock());
    // Timeframe funding is exempt from granularity and window rules (spec part 8, rules 2 and 4).
    if (timeframe !== 'funding') {
      this.tiers.requireTimeframe(caller.tier, timeframe);
      this.tiers.requireWindow(caller.tier, start, end);
    }
    return { exchange, symbol, timeframe, names, start, end };
  }

  /** One feature page with each row rendered as JSON text (the REST path). */
  async featurePageJson(q: FeatureQuery): Promise<{ count: number; next_start: string | null; rows: string[] }> {
    const [id] = (await this.market.resolveSeries([q])).values();
    const end = q.timeframe === 'funding' ? q.end : Math.min(q.end, lastClosedOpen(this.clock(), q.timeframe));
    if (id === undefined || q.start > end) return { count: 0, next_start: null, rows: [] };
    const rows = await this.repo.featuresJson(id, q.timeframe, q.names, new Date(q.start), new Date(end), MAX_ROWS + 1);
    const more = rows.length > MAX_ROWS;
    const page = more ? rows.slice(0, MAX_ROWS) : rows;
    return { count: page.length, next_start: more ? rows[MAX_ROWS].time : null, rows: page.map((r) => r.json) };
  }

  /** Feature pages, one per query, in order; queries sharing parameters share one statement. */
  async featurePages(queries: readonly FeatureQuery[]): Promise<Array<Page<FeatureRow>>> {
    const ids = await this.market.resolveSeries(queries);
    const now = this.clock();
    const endOf = (q: FeatureQuery) => (q.timeframe === 'funding' ? q.end : Math.min(q.end, lastClosedOpen(now, q.timeframe)));
    return batchPages(queries, {
      idOf: (q) => ids.get(`${q.exchange}|${q.symbol}`),
      keyOf: (q) => (q.start > endOf(q) ? null : `${q.timeframe}|${q.start}|${endOf(q)}|${q.names.join(',')}`),
      limitOf: () => MAX_ROWS,
      fetch: (q, series, limit) => this.repo.features(series, q.timeframe, q.names, new Date(q.start), new Date(endOf(q)), limit),
    });
  }
}
