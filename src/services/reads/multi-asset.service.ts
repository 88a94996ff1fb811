/** One field across several symbols, aligned by time (GET /v1/multi-asset, GraphQL `multiAsset`). */
import type { MultiAssetRepository } from '../../db/multi-asset.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import { NO_JSON_ROWS, type JsonRows, type MultiAssetRequest, type MultiAssetRow, type Page } from '../../domain/market';
import { alignedJson, alignedRows, multiAssetSource, type Aligned, type MultiAssetSource } from '../../domain/multi-asset';
import { MAX_ROWS } from '../../domain/params/market-params';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import { closedEnd } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import type { Principal } from '../access/principal';
import { page } from './batch-pages';
import type { WatermarkScope } from './page-tags.service';
import type { TierPolicy } from '../access/tier-policy';

const EMPTY: Page<MultiAssetRow> = { count: 0, nextStart: null, data: [] };

export class MultiAssetService {
  constructor(
    private readonly endpoint: MarketEndpoints['multiAsset'],
    private readonly exchanges: Exchanges,
    private readonly seriesRepo: SeriesRepository,
    private readonly values: MultiAssetRepository,
    private readonly tiers: TierPolicy,
    private readonly clock: () => number,
  ) {}

  parseRequest(caller: Principal, raw: RawParams): MultiAssetRequest {
    const q = this.endpoint.parse(raw, this.clock());
    this.tiers.requireSymbolCount(caller.tier, q.symbols.length);
    this.tiers.requireTimeframe(caller.tier, q.timeframe);
    this.tiers.requireWindow(caller.tier, q.start, q.end);
    return q;
  }

  async page(caller: Principal, raw: RawParams): Promise<{ request: MultiAssetRequest; page: Page<MultiAssetRow> }> {
    const request = this.parseRequest(caller, raw);
    return { request, page: await this.rows(request) };
  }

  /** What the page of `q` at `now` is read from (its write watermark's scope); null: none of its markets has rows. */
  async scope(q: MultiAssetRequest, now: number): Promise<WatermarkScope | null> {
    const plan = await this.plan(q, now);
    if (plan === null) return null;
    return { seriesIds: [...plan.symbolOf.keys()], timeframes: [plan.source.timeframe ?? 'funding'], startMs: q.start, endMs: plan.end };
  }

  /**
   * The page at `now` with its rows already rendered as JSON objects (`time`, then each symbol's
   * value), for the JSON representation: no row object per time.
   */
  async pageAsJson(q: MultiAssetRequest, now: number): Promise<JsonRows> {
    const series = await this.series(q, now);
    return series === null ? NO_JSON_ROWS : alignedJson(series.list, series.places, MAX_ROWS);
  }

  /** Rows with at least one symbol's value, each listing its values in the request's symbol order. */
  async rows(q: MultiAssetRequest, now = this.clock()): Promise<Page<MultiAssetRow>> {
    const series = await this.series(q, now);
    return series === null ? EMPTY : page(alignedRows(series.list, series.places, MAX_ROWS + 1), MAX_ROWS);
  }

  /**
   * The page's series (id -> symbol, in the request's order), where its field is stored and the
   * end of what it may show: candle values and the technical features computed on them, closed
   * periods only. Null when none of its markets is known.
   */
  private async plan(q: MultiAssetRequest, now: number): Promise<{ symbolOf: Map<number, string>; source: MultiAssetSource; end: number } | null> {
    const ids = await this.seriesRepo.idsOf(q.symbols.map((symbol) => ({ exchange: q.exchange, symbol })));
    const symbolOf = new Map<number, string>();
    for (const symbol of q.symbols) {
      const id = ids.get(marketKey({ exchange: q.exchange, symbol }));
      if (id !== undefined) symbolOf.set(id, symbol);
    }
    if (symbolOf.size === 0) return null;
    const source = multiAssetSource(q.field, q.exchange, q.timeframe, this.exchanges);
    const end = source.timeframe === q.timeframe ? closedEnd(q.end, q.timeframe, now) : q.end;
    return { symbolOf, source, end };
  }

  /** Each asked series' first values of the page, in the request's symbol order, and their places; null when none can have any. */
  private async series(q: MultiAssetRequest, now: number): Promise<{ list: Aligned; places: number } | null> {
    const plan = await this.plan(q, now);
    if (plan === null || q.start > plan.end) return null;
    const { symbolOf, source, end } = plan;
    const bySeries = await this.values.values([...symbolOf.keys()], source, new Date(q.start), new Date(end), MAX_ROWS + 1);
    const order = new Map(q.symbols.map((s, i) => [s, i]));
    const series = [...bySeries].map(([id, values]) => ({ symbol: symbolOf.get(id)!, ...values }));
    return { list: series.sort((a, b) => order.get(a.symbol)! - order.get(b.symbol)!), places: source.places };
  }
}
