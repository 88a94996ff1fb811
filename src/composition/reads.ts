/**
 * The API's reads: the endpoints' declarations, the plans, access and keys, the data reads
 * (over `store.routed`), the page tags of revalidation, and quality.
 */
import type { Config } from '../config';
import type { Store } from '../db/store';
import type { Exchanges } from '../domain/exchanges';
import { marketEndpoints, type MarketEndpoints } from '../domain/params/market-endpoints';
import { AccessService } from '../services/access/access.service';
import { KeysService } from '../services/access/keys.service';
import { TierPolicy } from '../services/access/tier-policy';
import { QualityService } from '../services/derived/quality.service';
import type { EventPublisher } from '../services/events/event-publisher';
import type { QuotaStore } from '../services/quota/quota-store';
import { CandlesService } from '../services/reads/candles.service';
import { DerivativesService } from '../services/reads/derivatives.service';
import { FeatureReadService } from '../services/reads/feature-read.service';
import { FundingService } from '../services/reads/funding.service';
import { MarketsService } from '../services/reads/markets.service';
import { MultiAssetService } from '../services/reads/multi-asset.service';
import { PageTags } from '../services/reads/page-tags.service';
import { ResponseCache } from '../services/reads/response-cache';
import type { TagCache } from '../services/reads/tag-cache';

export interface ReadServices {
  endpoints: MarketEndpoints;
  tiers: TierPolicy;
  access: AccessService;
  keys: KeysService;
  candles: CandlesService;
  derivatives: DerivativesService;
  funding: FundingService;
  multiAsset: MultiAssetService;
  markets: MarketsService;
  features: FeatureReadService;
  tags: PageTags;
  /** Small pages from memory while the watermarks' moves are heard (server.ts follows them). */
  responses: ResponseCache;
  quality: QualityService;
}

export interface ReadDeps {
  config: Config;
  store: Store;
  exchanges: Exchanges;
  quotaStore: QuotaStore;
  tagCache: TagCache;
  /** Quality publishes the records it stores (the quality job and recompute write through it). */
  publisher: EventPublisher;
  clock: () => number;
}

export function readServices({ config, store, exchanges, quotaStore, tagCache, publisher, clock }: ReadDeps): ReadServices {
  const endpoints = marketEndpoints(exchanges);
  const tiers = new TierPolicy(config.tierLimits, config.upgradeUrl);
  const access = new AccessService(store.keys, quotaStore, tiers, config.adminToken, clock);
  const keys = new KeysService(store.keys, (hash) => access.forget(hash));
  const { routed } = store;
  const candles = new CandlesService(endpoints.ohlcv, routed.series, routed.candles, tiers, clock);
  const derivatives = new DerivativesService(endpoints.derivatives, routed.series, routed.derivatives, tiers, clock);
  const funding = new FundingService(endpoints.funding, exchanges, routed.series, routed.funding, tiers, clock);
  const multiAsset = new MultiAssetService(endpoints.multiAsset, exchanges, routed.series, routed.multiAsset, tiers, clock);
  const markets = new MarketsService(endpoints, exchanges, routed.series, routed.candles, routed.ingest, clock);
  const features = new FeatureReadService(endpoints.features, routed.series, routed.features, tiers, clock);
  const tags = new PageTags(routed.watermarks, tagCache, store.watermarks);
  const responses = new ResponseCache(config.responseCacheBytes);
  const quality = new QualityService({
    endpoint: endpoints.quality,
    exchanges,
    series: store.series,
    candles: store.candles,
    quality: store.quality,
    ingest: store.ingest,
    locks: store.locks,
    routed,
    tiers,
    clock,
    onChanged: (seriesId, records) => void publisher.qualityChanged(seriesId, records),
  });
  return { endpoints, tiers, access, keys, candles, derivatives, funding, multiAsset, markets, features, tags, responses, quality };
}
