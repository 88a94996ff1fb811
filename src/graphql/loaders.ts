/**
 * Per-request DataLoaders: every `candles`, `derivatives`, `funding`, `features`, `coverage`, `ingest` or `quality` field
 * of one GraphQL request that shares its parameters is answered by one read, however many
 * markets the document touches.
 */
import DataLoader from 'dataloader';
import type {
  Candle,
  CandleRequest,
  Derivatives,
  DerivativesRequest,
  FeatureRequest,
  FeatureRow,
  FundingRate,
  FundingRequest,
  IngestState,
  MarketRef,
  MarketSummary,
  Page,
  QualityRequest,
} from '../domain/market';
import type { QualityRecord } from '../domain/quality';
import type { Principal } from '../services/access/principal';
import type { CandlesService } from '../services/reads/candles.service';
import type { DerivativesService } from '../services/reads/derivatives.service';
import type { FeatureReadService } from '../services/reads/feature-read.service';
import type { FundingService } from '../services/reads/funding.service';
import type { MarketsService } from '../services/reads/markets.service';
import type { QualityService } from '../services/derived/quality.service';

export interface LoaderServices {
  candles: CandlesService;
  derivatives: DerivativesService;
  funding: FundingService;
  features: FeatureReadService;
  markets: MarketsService;
  quality: QualityService;
}

export interface Loaders {
  candles: DataLoader<CandleRequest, Page<Candle>, string>;
  derivatives: DataLoader<DerivativesRequest, Page<Derivatives>, string>;
  funding: DataLoader<FundingRequest, Page<FundingRate>, string>;
  features: DataLoader<FeatureRequest, Page<FeatureRow>, string>;
  coverage: DataLoader<MarketRef, MarketSummary, string>;
  ingest: DataLoader<MarketRef, IngestState | null, string>;
  /** The records of the caller's plan (the loader belongs to one request, so to one caller). */
  quality: DataLoader<QualityRequest, QualityRecord[], string>;
}

/** Requests are plain values: equal requests share one load. */
const byValue = <K>() => ({ cacheKeyFn: (q: K) => JSON.stringify(q) });

export function createLoaders(services: LoaderServices, caller: Principal): Loaders {
  return {
    candles: new DataLoader((qs) => services.candles.pages(qs), byValue<CandleRequest>()),
    derivatives: new DataLoader((qs) => services.derivatives.pages(qs), byValue<DerivativesRequest>()),
    funding: new DataLoader((qs) => services.funding.pages(qs), byValue<FundingRequest>()),
    features: new DataLoader((qs) => services.features.pages(qs), byValue<FeatureRequest>()),
    coverage: new DataLoader((refs) => services.markets.summariesOf(refs), { cacheKeyFn: (r) => `${r.exchange}|${r.symbol}` }),
    ingest: new DataLoader((refs) => services.markets.ingestOf(refs), { cacheKeyFn: (r) => `${r.exchange}|${r.symbol}` }),
    quality: new DataLoader<QualityRequest, QualityRecord[], string>((qs) => services.quality.recordsOf(caller, qs), byValue<QualityRequest>()),
  };
}
