/**
 * Per-request DataLoaders: every `candles`, `funding` or `coverage` field of one GraphQL
 * request that shares its parameters is answered by one SQL statement, however many
 * markets the document touches.
 */
import DataLoader from 'dataloader';
import type { CandleRow, FeatureRow, FundingRow } from '../db/market.repository';
import type { FeatureQuery, FeaturesService } from '../services/features.service';
import type {
  CandleQuery,
  FundingQuery,
  MarketDataService,
  MarketSummary,
  Page,
} from '../services/market-data.service';

export interface Loaders {
  candles: DataLoader<CandleQuery, Page<CandleRow>, string>;
  funding: DataLoader<FundingQuery, Page<FundingRow>, string>;
  coverage: DataLoader<{ exchange: string; symbol: string }, MarketSummary, string>;
  features: DataLoader<FeatureQuery, Page<FeatureRow>, string>;
}

export function createLoaders(market: MarketDataService, features: FeaturesService): Loaders {
  return {
    candles: new DataLoader((qs) => market.candlePages(qs), { cacheKeyFn: (q) => JSON.stringify(q) }),
    funding: new DataLoader((qs) => market.fundingPages(qs), { cacheKeyFn: (q) => JSON.stringify(q) }),
    coverage: new DataLoader((refs) => market.summariesOf(refs), { cacheKeyFn: (r) => `${r.exchange}|${r.symbol}` }),
    features: new DataLoader((qs) => features.featurePages(qs), { cacheKeyFn: (q) => JSON.stringify(q) }),
  };
}
