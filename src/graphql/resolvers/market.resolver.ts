/**
 * Markets for dashboards: `market(exchange, symbol) { coverage candles funding }`,
 * `markets(exchange)` and `multiAsset`. Each field calls the same MarketDataService method
 * REST calls (validation, tier rules, values); loaders batch the SQL across markets.
 */
import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { MarketDataService } from '../../services/market-data.service';
import type { FeaturesService } from '../../services/features.service';
import type { QualityService } from '../../services/quality.service';
import type { GqlContext } from '../context';
import { RateLimited } from '../field-rate-limit';
import { Candle, CandleColumns, CandlePage, Coverage, FeaturePage, FundingPage, Market, MultiAssetPage, QualityRecord } from '../types/market.types';

/** Per-field limits on the expensive fields, per API key, on every plan. */
export const ROWS_FIELD_LIMIT = { max: 600, windowMs: 60_000 };
export const MULTI_ASSET_LIMIT = { max: 120, windowMs: 60_000 };

function toColumns(rows: ReadonlyArray<Candle>): CandleColumns {
  const n = rows.length;
  const c: CandleColumns = { time: new Array(n), open: new Array(n), high: new Array(n), low: new Array(n), close: new Array(n), volume: new Array(n) };
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    c.time[i] = r.time;
    c.open[i] = r.open;
    c.high[i] = r.high;
    c.low[i] = r.low;
    c.close[i] = r.close;
    c.volume[i] = r.volume;
  }
  return c;
}

@Resolver(() => Market)
export class MarketResolver {
  constructor(
    private readonly service: MarketDataService,
    private readonly featureService: FeaturesService,
    private readonly qualityService: QualityService,
  ) {}

  @Query(() => Market, { nullable: true, description: 'One market; fields below read its data.' })
  market(@Arg('exchange') exchange: string, @Arg('symbol') symbol: string): Market {
    return this.service.marketRef({ exchange, symbol });
  }

  @Query(() => [Market], { description: 'Every market, optionally of one venue (GET /v1/markets).' })
  async markets(@Arg('exchange', () => String, { nullable: true }) exchange: string | null, @Ctx() ctx: GqlContext): Promise<Market[]> {
    const list = await this.service.markets({ exchange });
    for (const m of list) ctx.loaders.coverage.prime({ exchange: m.exchange, symbol: m.symbol }, m);
    return list.map((m) => ({ exchange: m.exchange, symbol: m.symbol }));
  }

  @FieldResolver(() => [Coverage], { nullable: true, description: 'First and last closed candle time per timeframe (and funding).' })
  async coverage(@Root() m: Market, @Ctx() ctx: GqlContext): Promise<Coverage[]> {
    return (await ctx.loaders.coverage.load({ exchange: m.exchange, symbol: m.symbol })).coverage as Coverage[];
  }

  @FieldResolver(() => CandlePage, { nullable: true, description: 'Candles in [start, end] (GET /v1/ohlcv); null with an error when refused.' })
  @RateLimited(ROWS_FIELD_LIMIT)
  async candles(
    @Root() m: Market,
    @Arg('timeframe') timeframe: string,
    @Arg('start') start: string,
    @Arg('end', () => String, { nullable: true }) end: string | null,
    @Arg('limit', () => Int, { nullable: true, description: '1-10,000; default 1,000' }) limit: number | null,
    @Ctx() ctx: GqlContext,
  ): Promise<CandlePage> {
    const q = this.service.candleQuery(ctx.principal, { ...m, timeframe, start, end, limit });
    const p = await ctx.loaders.candles.load(q);
    return {
      count: p.count,
      nextStart: p.next_start,
      data: p.data,
      // Built only when selected: a getter on the page.
      get columns() {
        return toColumns(p.data);
      },
    };
  }

  @FieldResolver(() => FundingPage, { nullable: true, description: 'Hourly funding in [start, end] (GET /v1/funding); perpetual venue; null with an error when refused.' })
  @RateLimited(ROWS_FIELD_LIMIT)
  async funding(
    @Root() m: Market,
    @Arg('start') start: string,
    @Arg('end', () => String, { nullable: true }) end: string | null,
    @Arg('normalized', () => Boolean, { defaultValue: false }) normalized: boolean,
    @Ctx() ctx: GqlContext,
  ): Promise<FundingPage> {
    const q = this.service.fundingQuery(ctx.principal, { ...m, start, end, normalized });
    const p = await ctx.loaders.funding.load(q);
    return {
      count: p.count,
      nextStart: p.next_start,
      data: p.data.map((r) => ({ time: r.time, rate: r.rate, rateNormalized: r.rate_normalized ?? null, premium: r.premium ?? null })),
    };
  }

  @FieldResolver(() => FeaturePage, { nullable: true, description: 'Pre-computed features, wide (GET /v1/features).' })
  @RateLimited(ROWS_FIELD_LIMIT)
  async features(
    @Root() m: Market,
    @Arg('timeframe', { description: '1m to 1d for technical features; funding for funding/premium features' }) timeframe: string,
    @Arg('names', () => [String]) names: string[],
    @Arg('start') start: string,
    @Arg('end', () => String, { nullable: true }) end: string | null,
    @Ctx() ctx: GqlContext,
  ): Promise<FeaturePage> {
    const q = this.featureService.featureQuery(ctx.principal, { ...m, timeframe, features: names, start, end });
    const p = await ctx.loaders.features.load(q);
    return {
      features: q.names,
      count: p.count,
      nextStart: p.next_start,
      data: p.data.map((r) => ({ time: r.time as string, values: q.names.map((name) => ({ name, value: r[name] ?? null })) })),
    };
  }

  @FieldResolver(() => [QualityRecord], { nullable: true, description: 'Data quality per timeframe allowed on your plan (GET /v1/quality).' })
  async quality(
    @Root() m: Market,
    @Arg('timeframe', () => String, { nullable: true }) timeframe: string | null,
    @Ctx() ctx: GqlContext,
  ): Promise<QualityRecord[]> {
    const r = await this.qualityService.report(ctx.principal, { ...m, timeframe });
    return r.timeframes.map((t) => ({
      timeframe: t.timeframe,
      dqs: t.dqs,
      band: t.band,
      computedAt: t.computed_at,
      components: {
        gapRateScore: t.components.gap_rate_score,
        anomalyScore: t.components.anomaly_score,
        consistencyScore: t.components.consistency_score,
        freshnessScore: t.components.freshness_score,
      },
      expectedCandles: t.expected_candles,
      presentCandles: t.present_candles,
      missingIntervals: t.missing_intervals,
    }));
  }

  @Query(() => MultiAssetPage, { nullable: true, description: 'One field across symbols, aligned by time (GET /v1/multi-asset).' })
  @RateLimited(MULTI_ASSET_LIMIT)
  async multiAsset(
    @Arg('exchange') exchange: string,
    @Arg('symbols', () => [String]) symbols: string[],
    @Arg('timeframe') timeframe: string,
    @Arg('field') field: string,
    @Arg('start') start: string,
    @Arg('end', () => String, { nullable: true }) end: string | null,
    @Ctx() ctx: GqlContext,
  ): Promise<MultiAssetPage> {
    const q = this.service.multiAssetQuery(ctx.principal, { exchange, symbols, timeframe, field, start, end });
    const p = await this.service.multiAsset(q);
    return {
      symbols: q.symbols,
      exchange: q.exchange,
      timeframe: q.timeframe,
      field: q.field,
      count: p.count,
      nextStart: p.next_start,
      data: p.data.map((r) => ({ time: r.time, values: r.values.map(([symbol, value]) => ({ symbol, value })) })),
    };
  }
}
