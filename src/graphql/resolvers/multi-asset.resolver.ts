/** `multiAsset`: one field across symbols, aligned by time, through the same service as GET /v1/multi-asset. */
import { Args, Ctx, Query, Resolver } from 'type-graphql';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { MultiAssetService } from '../../services/reads/multi-asset.service';
import { argsType, rawOf } from '../args';
import type { GqlContext } from '../context';
import { RateLimited } from '../field-rate-limit';
import { MultiAssetPageType } from '../types/market.types';

export const MULTI_ASSET_LIMIT = { max: 120, windowMs: 60_000 };

@Resolver()
export class MultiAssetResolver {
  constructor(
    private readonly endpoints: MarketEndpoints,
    private readonly service: MultiAssetService,
  ) {}

  @Query(() => MultiAssetPageType, { nullable: true, description: 'One field across symbols, aligned by time (GET /v1/multi-asset).' })
  @RateLimited(MULTI_ASSET_LIMIT)
  async multiAsset(@Args(() => argsType('multiAsset')) args: Record<string, unknown>, @Ctx() ctx: GqlContext): Promise<MultiAssetPageType> {
    const { request: q, page: p } = await this.service.page(ctx.principal, rawOf(this.endpoints.multiAsset, args));
    return { symbols: q.symbols, exchange: q.exchange, timeframe: q.timeframe, field: q.field, ...p };
  }
}
