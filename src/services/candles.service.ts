/**
 * Candles (GET /v1/ohlcv, GraphQL `market.candles`): the endpoint's rules, the caller's plan, the
 * pages, with the trade flow only when `fields` asks for it (otherwise the read is unchanged).
 */
import type { CandlesRepository } from '../db/candles.repository';
import { marketKey, type SeriesRepository } from '../db/series.repository';
import type { Candle, CandleRequest, JsonRows, Page } from '../domain/market';
import type { RawParams } from '../domain/params/param';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import { closedEnd } from '../domain/timeframe';
import type { Principal } from './access/principal';
import { batchPages, onePage } from './batch-pages';
import type { TierPolicy } from './tier-policy';

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

  /** One validated page: what GET /v1/ohlcv serves. */
  async page(caller: Principal, raw: RawParams): Promise<{ request: CandleRequest; page: Page<Candle> }> {
    return onePage(this.parseRequest(caller, raw), (qs) => this.pages(qs));
  }

  /**
   * One validated page with its rows as JSON object text (`time` and the candle's values):
   * the fast path of GET /v1/ohlcv's JSON, with no object per row.
   */
  async pageAsJson(caller: Principal, raw: RawParams): Promise<{ request: CandleRequest; page: JsonRows }> {
    const request = this.parseRequest(caller, raw);
    const id = (await this.series.idsOf([request])).get(marketKey(request));
    const end = closedEnd(request.end, request.timeframe, this.clock());
    if (id === undefined || request.start > end) return { request, page: { count: 0, nextStart: null, json: '' } };
    return { request, page: await this.candles.pageAsJson(id, request.timeframe, new Date(request.start), new Date(end), request.limit, request.fields) };
  }

  /** Pages, one per request, in order; requests sharing their parameters share one statement. Closed candles only. */
  async pages(requests: readonly CandleRequest[]): Promise<Array<Page<Candle>>> {
    const ids = await this.series.idsOf(requests);
    const now = this.clock();
    const endOf = (q: CandleRequest) => closedEnd(q.end, q.timeframe, now);
    return batchPages(requests, {
      idOf: (q) => ids.get(marketKey(q)),
      keyOf: (q) => (q.start > endOf(q) ? null : `${q.timeframe}|${q.start}|${endOf(q)}|${q.limit}|${q.fields !== undefined}`),
      limitOf: (q) => q.limit,
      fetch: (q, series, limit) => this.candles.pages(series, q.timeframe, new Date(q.start), new Date(endOf(q)), limit, q.fields !== undefined),
    });
  }
}
