/**
 * Candles (GET /v1/ohlcv, GraphQL `market.candles`): the endpoint's rules, the caller's plan, and
 * the read plan of a request: its series and closed end resolved once, its rows as the
 * database's text (domain/candle-text.ts renders them), with the trade flow only when `fields`
 * asks for it (otherwise the read and its tag are what they always were).
 */
import type { CandlesRepository } from '../../db/candles.repository';
import type { SeriesRepository } from '../../db/series.repository';
import { apiTimeOfEpoch } from '../../domain/candle-text';
import { emptyPage, type CandleRequest, type Page, type TextRow } from '../../domain/market';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { Principal } from '../access/principal';
import type { TierPolicy } from '../access/tier-policy';
import { batchPages } from './batch-pages';
import { seriesWindow, type ReadPlan } from './read-plan';

export interface CandlePlan extends ReadPlan<CandleRequest, Page<TextRow>> {
  /** The series read; null: the market has no rows. */
  readonly seriesId: number | null;
  /** The end its rows are cut at: the last closed candle at `now`. */
  readonly end: number;
  /** Whether its rows carry the trade flow (CANDLE_FLOW_TEXT_COLUMNS). */
  readonly flow: boolean;
}

export class CandlesService {
  constructor(
    private readonly endpoint: MarketEndpoints['ohlcv'],
    private readonly series: SeriesRepository,
    private readonly candles: CandlesRepository,
    private readonly tiers: TierPolicy,
    private readonly clock: () => number,
  ) {}

  /** Validate a candle read (400s) and check it against the caller's plan (403). */
  parseRequest(caller: Principal, raw: RawParams): CandleRequest {
    const q = this.endpoint.parse(raw, this.clock());
    this.tiers.requireTimeframe(caller.tier, q.timeframe);
    this.tiers.requireWindow(caller.tier, q.start, q.end);
    return q;
  }

  /** The read plan of a validated request at `now`: closed candles only. */
  async plan(request: CandleRequest, now = this.clock()): Promise<CandlePlan> {
    const { seriesId, end, scope } = await seriesWindow(this.series, request, request.timeframe, now);
    const flow = request.fields !== undefined;
    return {
      request,
      now,
      timeframe: request.timeframe,
      seriesId,
      end,
      flow,
      scope,
      read: async () => {
        if (seriesId === null) return { page: emptyPage<TextRow>(), mark: null };
        return this.candles.page(seriesId, request.timeframe, new Date(request.start), new Date(end), request.limit, flow, scope);
      },
    };
  }

  /** The pages of several plans (a GraphQL request), in order; plans sharing their parameters share one statement. */
  readMany(plans: readonly CandlePlan[]): Promise<Array<Page<TextRow>>> {
    return batchPages(plans, {
      // A window that ends before it starts (an open end cut at the last closed candle) reads nothing.
      idOf: (p) => (p.request.start > p.end ? null : p.seriesId),
      keyOf: (p) => `${p.request.timeframe}|${p.request.start}|${p.end}|${p.request.limit}|${p.flow}`,
      limitOf: (p) => p.request.limit,
      fetch: (p, ids, limit) => this.candles.pages(ids, p.request.timeframe, new Date(p.request.start), new Date(p.end), limit, p.flow),
      timeOf: (r) => apiTimeOfEpoch(r[0]!),
    });
  }
}
