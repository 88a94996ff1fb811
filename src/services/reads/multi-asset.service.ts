/** One field across several symbols, aligned by time (GET /v1/multi-asset, GraphQL `multiAsset`). */
import type { MultiAssetRepository } from '../../db/multi-asset.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import type { MultiAssetRequest, MultiAssetRow, Page } from '../../domain/market';
import { alignedPage, ascending, multiAssetSource, type AlignedValues } from '../../domain/multi-asset';
import { MAX_ROWS } from '../../domain/params/market-params';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import { closedEnd } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import type { Principal } from '../access/principal';
import type { TierPolicy } from '../access/tier-policy';
import type { ReadPlan } from './read-plan';

const NONE: AlignedValues = { list: [], places: 0 };

/** A multi-asset read's page: each asked series' first values, merged by time when served (alignSeries). */
export type MultiAssetPlan = ReadPlan<MultiAssetRequest, AlignedValues>;

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

  /**
   * The read plan of a validated request at `now`: where its field is stored and the end of what
   * it may show (candle values and the technical features computed on them: closed periods
   * only). Its page holds each series' first MAX_ROWS + 1 values, every time of the page among them.
   */
  async plan(q: MultiAssetRequest, now = this.clock()): Promise<MultiAssetPlan> {
    const ids = await this.seriesRepo.idsOf(q.symbols.map((symbol) => ({ exchange: q.exchange, symbol })));
    const symbolOf = new Map<number, string>();
    for (const symbol of q.symbols) {
      const id = ids.get(marketKey({ exchange: q.exchange, symbol }));
      if (id !== undefined) symbolOf.set(id, symbol);
    }
    // No known market: nothing to read (and no source to check).
    const source = symbolOf.size === 0 ? null : multiAssetSource(q.field, q.exchange, q.timeframe, this.exchanges);
    const end = source === null || source.timeframe !== q.timeframe ? q.end : closedEnd(q.end, q.timeframe, now);
    const scope = source === null ? null : { seriesIds: [...symbolOf.keys()], timeframes: [source.timeframe ?? 'funding'], startMs: q.start, endMs: end };
    return {
      request: q,
      now,
      timeframe: q.timeframe,
      scope,
      read: async () => {
        if (source === null || scope === null) return { page: NONE, mark: null };
        const { values, mark } = await this.values.values(scope.seriesIds, source, new Date(q.start), new Date(end), MAX_ROWS + 1, scope);
        const order = new Map(q.symbols.map((s, i) => [s, i]));
        const list = [...values].map(([id, v]) => ascending({ symbol: symbolOf.get(id)!, ...v })).sort((a, b) => order.get(a.symbol)! - order.get(b.symbol)!);
        return { page: { list, places: source.places }, mark };
      },
    };
  }

  /** The rows of a caller's read (GraphQL `multiAsset`). */
  async page(caller: Principal, raw: RawParams): Promise<{ request: MultiAssetRequest; page: Page<MultiAssetRow> }> {
    const request = this.parseRequest(caller, raw);
    const { page } = await (await this.plan(request)).read();
    return { request, page: alignedPage(page, MAX_ROWS) };
  }
}
