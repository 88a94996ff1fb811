/**
 * Per-request DataLoaders: the read plans of every `candles`, `derivatives`, `funding` or
 * `features` field of one GraphQL request that share their parameters are answered by one read,
 * however many markets the document touches; so are `coverage`, `ingest` and `quality`.
 */
import DataLoader from 'dataloader';
import type { Derivatives, FeatureRow, FundingRate, IngestState, MarketRef, MarketSummary, Page, QualityRequest, TextRow } from '../domain/market';
import type { QualityRecord } from '../domain/quality';
import type { Principal } from '../services/access/principal';
import type { CandlePlan, CandlesService } from '../services/reads/candles.service';
import type { DerivativesPlan, DerivativesService } from '../services/reads/derivatives.service';
import type { FeaturePlan, FeatureReadService } from '../services/reads/feature-read.service';
import type { FundingPlan, FundingService } from '../services/reads/funding.service';
import { planKey } from '../services/reads/read-plan';
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
  candles: DataLoader<CandlePlan, Page<TextRow>, string>;
  derivatives: DataLoader<DerivativesPlan, Page<Derivatives>, string>;
  funding: DataLoader<FundingPlan, Page<FundingRate>, string>;
  features: DataLoader<FeaturePlan, Page<FeatureRow>, string>;
  coverage: DataLoader<MarketRef, MarketSummary, string>;
  ingest: DataLoader<MarketRef, IngestState | null, string>;
  /** The records of the caller's plan (the loader belongs to one request, so to one caller). */
  quality: DataLoader<QualityRequest, QualityRecord[], string>;
}

/** Requests are plain values: equal requests share one load. */
const byValue = <K>() => ({ cacheKeyFn: (q: K) => JSON.stringify(q) });

export function createLoaders(services: LoaderServices, caller: Principal): Loaders {
  return {
    candles: new DataLoader<CandlePlan, Page<TextRow>, string>((plans) => services.candles.readMany(plans), { cacheKeyFn: planKey }),
    derivatives: new DataLoader<DerivativesPlan, Page<Derivatives>, string>((plans) => services.derivatives.readMany(plans), { cacheKeyFn: planKey }),
    funding: new DataLoader<FundingPlan, Page<FundingRate>, string>((plans) => services.funding.readMany(plans), { cacheKeyFn: planKey }),
    features: new DataLoader<FeaturePlan, Page<FeatureRow>, string>((plans) => services.features.readMany(plans), { cacheKeyFn: planKey }),
    coverage: new DataLoader((refs) => services.markets.summariesOf(refs), { cacheKeyFn: (r) => `${r.exchange}|${r.symbol}` }),
    ingest: new DataLoader((refs) => services.markets.ingestOf(refs), { cacheKeyFn: (r) => `${r.exchange}|${r.symbol}` }),
    quality: new DataLoader<QualityRequest, QualityRecord[], string>((qs) => services.quality.recordsOf(caller, qs), byValue<QualityRequest>()),
  };
}
