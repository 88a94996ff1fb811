/**
 * Candles (GET /v1/ohlcv, GraphQL `market.candles`): the endpoint's rules, the caller's plan, the
 * pages, with the trade flow only when `fields` asks for it (otherwise the read is unchanged).
 */
import type { CandlesRepository } from '../../db/candles.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import { NO_JSON_ROWS, type Candle, type CandleRequest, type JsonRows, type Page } from '../../domain/market';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import { closedEnd } from '../../domain/timeframe';
import type { Principal } from '../access/principal';
import { batchPages, onePage } from './batch-pages';
import type { WatermarkScope } from './page-tags.service';
import type { TierPolicy } from '../access/tier-policy';

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

  /** The page of a validated request at `now`: what GET /v1/ohlcv serves. */
  async page(request: CandleRequest, now: number): Promise<Page<Candle>> {
    return (await onePage(request, (qs) => this.pages(qs, now))).page;
  }

  /**
   * The same with each row as its JSON object text (`time` and the candle's values): the fast
   * path of GET /v1/ohlcv's JSON, with no object per row.
   */
  async pageAsJson(request: CandleRequest, now: number): Promise<JsonRows> {
    const id = (await this.series.idsOf([request])).get(marketKey(request));
    const end = closedEnd(request.end, request.timeframe, now);
    if (id === undefined || request.start > end) return NO_JSON_ROWS;
    return this.candles.pageAsJson(id, request.timeframe, new Date(request.start), new Date(end), request.limit, request.fields);
  }

  /** What the page of `request` at `now` is read from (its write watermark's scope); null: a market with no rows. */
  async scope(request: CandleRequest, now: number): Promise<WatermarkScope | null> {
    const id = (await this.series.idsOf([request])).get(marketKey(request));
    if (id === undefined) return null;
    return { seriesIds: [id], timeframes: [request.timeframe], startMs: request.start, endMs: closedEnd(request.end, request.timeframe, now) };
  }

  /** Pages, one per request, in order; requests sharing their parameters share one statement. Closed candles only. */
  async pages(requests: readonly CandleRequest[], now = this.clock()): Promise<Array<Page<Candle>>> {
    const ids = await this.series.idsOf(requests);
    const endOf = (q: CandleRequest) => closedEnd(q.end, q.timeframe, now);
    return batchPages(requests, {
      idOf: (q) => ids.get(marketKey(q)),
      keyOf: (q) => (q.start > endOf(q) ? null : `${q.timeframe}|${q.start}|${endOf(q)}|${q.limit}|${q.fields !== undefined}`),
      limitOf: (q) => q.limit,
      fetch: (q, series, limit) => this.candles.pages(series, q.timeframe, new Date(q.start), new Date(endOf(q)), limit, q.fields !== undefined),
    });
  }
}
