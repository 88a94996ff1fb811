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
  /**
   * Empty every page read, once the result is made. A loader, its promises and the resolvers'
   * parents can outlive the request in the old generation until a full collection; pointing at
   * a page's rows, they would keep every young collection copying them (then promoting them).
   */
  release(): void;
}

/** Requests are plain values: equal requests share one load. */
const byValue = <K>() => ({ cacheKeyFn: (q: K) => JSON.stringify(q) });

export function createLoaders(services: LoaderServices, caller: Principal): Loaders {
  const read: Array<Page<unknown>> = [];
  const kept = <P extends Page<unknown>>(pages: P[]): P[] => {
    read.push(...pages);
    return pages;
  };
  return {
    candles: new DataLoader<CandlePlan, Page<TextRow>, string>((plans) => services.candles.readMany(plans).then(kept), { cacheKeyFn: planKey }),
    derivatives: new DataLoader<DerivativesPlan, Page<Derivatives>, string>((plans) => services.derivatives.readMany(plans).then(kept), { cacheKeyFn: planKey }),
    funding: new DataLoader<FundingPlan, Page<FundingRate>, string>((plans) => services.funding.readMany(plans).then(kept), { cacheKeyFn: planKey }),
    features: new DataLoader<FeaturePlan, Page<FeatureRow>, string>((plans) => services.features.readMany(plans).then(kept), { cacheKeyFn: planKey }),
    coverage: new DataLoader((refs) => services.markets.summariesOf(refs), { cacheKeyFn: (r) => `${r.exchange}|${r.symbol}` }),
    ingest: new DataLoader((refs) => services.markets.ingestOf(refs), { cacheKeyFn: (r) => `${r.exchange}|${r.symbol}` }),
    quality: new DataLoader<QualityRequest, QualityRecord[], string>((qs) => services.quality.recordsOf(caller, qs), byValue<QualityRequest>()),
    release() {
      // In place: the resolvers' parents hold the same arrays.
      for (const p of read) p.data.length = 0;
      read.length = 0;
    },
  };
}
