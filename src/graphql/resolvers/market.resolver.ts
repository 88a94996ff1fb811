/**
 * Markets for dashboards: `market(exchange, symbol) { coverage ingest candles derivatives funding
 * features quality }` and `markets(exchange)`. Each field hands its arguments to the same service
 * method REST calls (validation, tier rules, values); loaders batch the reads across markets.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { Args, Ctx, FieldResolver, Info, Int, Query, Resolver, Root } from 'type-graphql';
import { TRADE_FLOW_FIELDS, type MarketRef } from '../../domain/market';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { CandlesService } from '../../services/reads/candles.service';
import type { DerivativesService } from '../../services/reads/derivatives.service';
import type { FeatureReadService } from '../../services/reads/feature-read.service';
import type { FundingService } from '../../services/reads/funding.service';
import type { MarketsService } from '../../services/reads/markets.service';
import type { QualityService } from '../../services/derived/quality.service';
import { argsType, rawOf } from '../args';
import type { GqlContext } from '../context';
import { RateLimited } from '../field-rate-limit';
import { GRAPHQL_FIELDS } from '../fields';
import { selectsAny } from '../selection';
import { candlePageSource, derivativesColumns, featureValues, withColumns } from '../serializers';
import { DerivativesPageType } from '../types/derivatives.types';
import { CandlePageType, CoverageType, FeaturePageType, FundingPageType, IngestStatusType, MarketType, QualityRecordType } from '../types/market.types';

/** The candle fields of the trade flow: read only when selected. */
const TRADE_FLOW_NAMES = new Set(GRAPHQL_FIELDS.candles.tradeFlow);

/** Per-field limits on the expensive fields, per API key, on every plan. */
export const ROWS_FIELD_LIMIT = { max: 600, windowMs: 60_000 };

type Args = Record<string, unknown>;

export interface MarketResolverDeps {
  endpoints: MarketEndpoints;
  markets: MarketsService;
  candles: CandlesService;
  derivatives: DerivativesService;
  funding: FundingService;
  features: FeatureReadService;
  quality: QualityService;
}

@Resolver(() => MarketType)
export class MarketResolver {
  constructor(private readonly deps: MarketResolverDeps) {}

  @Query(() => MarketType, { nullable: true, description: 'One market; fields below read its data.' })
  market(@Args(() => argsType('market')) args: Args): MarketRef {
    return this.deps.markets.parseMarket(rawOf(this.deps.endpoints.market, args));
  }

  @Query(() => [MarketType], { description: 'Every market, optionally of one venue (GET /v1/markets).' })
  async markets(@Args(() => argsType('markets')) args: Args, @Ctx() ctx: GqlContext): Promise<MarketRef[]> {
    const list = await this.deps.markets.list(rawOf(this.deps.endpoints.markets, args));
    for (const m of list) ctx.loaders.coverage.prime({ exchange: m.exchange, symbol: m.symbol }, m);
    return list.map((m) => ({ exchange: m.exchange, symbol: m.symbol }));
  }

  @FieldResolver(() => [CoverageType], { nullable: true, description: 'First and last closed candle time per timeframe (and funding).' })
  async coverage(@Root() m: MarketRef, @Ctx() ctx: GqlContext): Promise<CoverageType[]> {
    return (await ctx.loaders.coverage.load({ exchange: m.exchange, symbol: m.symbol })).coverage;
  }

  @FieldResolver(() => Int, { nullable: true, description: "A perpetual's current funding interval in hours (its newest settlement's); null on spot or before any." })
  async fundingIntervalHours(@Root() m: MarketRef, @Ctx() ctx: GqlContext): Promise<number | null> {
    return (await ctx.loaders.coverage.load({ exchange: m.exchange, symbol: m.symbol })).fundingIntervalHours ?? null;
  }

  @FieldResolver(() => IngestStatusType, { nullable: true, description: 'Live ingestion from the venue; null when nothing ingests this market.' })
  async ingest(@Root() m: MarketRef, @Ctx() ctx: GqlContext): Promise<IngestStatusType | null> {
    return ctx.loaders.ingest.load({ exchange: m.exchange, symbol: m.symbol });
  }

  @FieldResolver(() => CandlePageType, { nullable: true, description: 'Candles in [start, end] (GET /v1/ohlcv); null with an error when refused.' })
  @RateLimited(ROWS_FIELD_LIMIT)
  async candles(@Root() m: MarketRef, @Args(() => argsType('candles')) args: Args, @Ctx() ctx: GqlContext, @Info() info: GraphQLResolveInfo): Promise<CandlePageType> {
    const q = this.deps.candles.parseRequest(ctx.principal, rawOf(this.deps.endpoints.ohlcv, args, m));
    const plan = await this.deps.candles.plan(selectsAny(info, TRADE_FLOW_NAMES) ? { ...q, fields: [...TRADE_FLOW_FIELDS] } : q);
    // data and columns: CandlePageResolver.
    return candlePageSource(await ctx.loaders.candles.load(plan), plan.flow) as unknown as CandlePageType;
  }

  @FieldResolver(() => DerivativesPageType, {
    nullable: true,
    description: "The perpetual's context per closed period in [start, end] (GET /v1/derivatives); null with an error when refused.",
  })
  @RateLimited(ROWS_FIELD_LIMIT)
  async derivatives(@Root() m: MarketRef, @Args(() => argsType('derivatives')) args: Args, @Ctx() ctx: GqlContext): Promise<DerivativesPageType> {
    const q = this.deps.derivatives.parseRequest(ctx.principal, rawOf(this.deps.endpoints.derivatives, args, m));
    return withColumns(await ctx.loaders.derivatives.load(await this.deps.derivatives.plan(q)), derivativesColumns);
  }

  @FieldResolver(() => FundingPageType, {
    nullable: true,
    description: 'Hourly funding in [start, end] (GET /v1/funding); perpetual venue; null with an error when refused.',
  })
  @RateLimited(ROWS_FIELD_LIMIT)
  async funding(@Root() m: MarketRef, @Args(() => argsType('funding')) args: Args, @Ctx() ctx: GqlContext): Promise<FundingPageType> {
    const q = this.deps.funding.parseRequest(ctx.principal, rawOf(this.deps.endpoints.funding, args, m));
    return ctx.loaders.funding.load(await this.deps.funding.plan(q));
  }

  @FieldResolver(() => FeaturePageType, { nullable: true, description: 'Pre-computed features, wide (GET /v1/features).' })
  @RateLimited(ROWS_FIELD_LIMIT)
  async features(@Root() m: MarketRef, @Args(() => argsType('features')) args: Args, @Ctx() ctx: GqlContext): Promise<FeaturePageType> {
    const q = this.deps.features.parseRequest(ctx.principal, rawOf(this.deps.endpoints.features, args, m));
    const p = await ctx.loaders.features.load(await this.deps.features.plan(q));
    return { features: q.names, count: p.count, nextStart: p.nextStart, data: p.data.map((r) => featureValues(q.names, r)) };
  }

  @FieldResolver(() => [QualityRecordType], { nullable: true, description: 'Data quality per timeframe allowed on your plan (GET /v1/quality).' })
  async quality(@Root() m: MarketRef, @Args(() => argsType('quality')) args: Args, @Ctx() ctx: GqlContext): Promise<QualityRecordType[]> {
    const q = this.deps.quality.parseRequest(ctx.principal, rawOf(this.deps.endpoints.quality, args, m));
    return ctx.loaders.quality.load(q);
  }
}
