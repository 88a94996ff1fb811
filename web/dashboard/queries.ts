/** The GraphQL documents of the dashboard: a handful, each one request against the key's quota. */
import { FEATURES, type Candle, type CandleColumns, type ContextColumns, type FeatureRow, type FundingRow, type Interval } from './series';

const NAMES = `[${FEATURES.map((f) => `"${f}"`).join(', ')}]`;

export interface Coverage {
  timeframe: string;
  first: string;
  last: string;
}

export interface MarketInfo {
  exchange: string;
  symbol: string;
  coverage: Coverage[] | null;
}

export interface QualityRecord {
  timeframe: string;
  dqs: string;
  band: string;
  missingIntervals: Interval[];
}

export interface IngestStatus {
  connected: boolean;
  lastClosed: string | null;
  lag: number | null;
}

export interface Boot {
  me: { tier: string; limits: { timeframes: string[]; historyDays: number | null } };
  markets: MarketInfo[];
  __schema: { subscriptionType: { fields: Array<{ name: string }> } | null };
}

/** Who the key is, every market with its coverage, and whether this server has subscriptions. */
export const BOOT = `query DashboardBoot {
  me { tier limits { timeframes historyDays } }
  markets { exchange symbol coverage { timeframe first last } }
  __schema { subscriptionType { fields { name } } }
}`;

export interface Page<T> {
  nextStart: string | null;
  data: T[];
}

export interface WindowResult {
  market: {
    candles: { nextStart: string | null; columns: CandleColumns } | null;
    derivatives?: { nextStart: string | null; columns: ContextColumns } | null;
    features: Page<FeatureRow> | null;
    funding?: Page<FundingRow> | null;
    quality?: QualityRecord[] | null;
    ingest?: IngestStatus | null;
  } | null;
}

/**
 * One window of a market: candles (on spot with their taker-buy volume), the features the panes
 * draw and, on the perpetual venue, normalized funding and the open interest where recorded; with
 * `first`, also the quality records and the ingest status. Each paged field starts at its own
 * variable so that a page cut short by its limit can be continued from its nextStart.
 */
export const WINDOW = `query DashboardWindow($exchange: String!, $symbol: String!, $timeframe: String!, $end: String!, $limit: Int!,
  $candlesFrom: String!, $featuresFrom: String!, $fundingFrom: String!, $fundingEnd: String!, $derivativesFrom: String!,
  $candles: Boolean!, $features: Boolean!, $funding: Boolean!, $derivatives: Boolean!, $flow: Boolean!, $first: Boolean!) {
  market(exchange: $exchange, symbol: $symbol) {
    candles(timeframe: $timeframe, start: $candlesFrom, end: $end, limit: $limit) @include(if: $candles) {
      nextStart columns { time open high low close volume takerBuyVolume @include(if: $flow) }
    }
    derivatives(timeframe: $timeframe, start: $derivativesFrom, end: $end, limit: $limit) @include(if: $derivatives) { nextStart columns { time openInterest } }
    features(timeframe: $timeframe, start: $featuresFrom, end: $end, names: ${NAMES}) @include(if: $features) { nextStart data { time values { value } } }
    funding(start: $fundingFrom, end: $fundingEnd, normalized: true) @include(if: $funding) { nextStart data { time rateNormalized premium } }
    quality @include(if: $first) { timeframe dqs band missingIntervals { start end } }
    ingest @include(if: $first) { connected lastClosed lag }
  }
}`;

export const INGEST = `query DashboardIngest($exchange: String!, $symbol: String!) {
  market(exchange: $exchange, symbol: $symbol) { ingest { connected lastClosed lag } }
}`;

export const CANDLE_CLOSED = `subscription DashboardCandles($exchange: String!, $symbol: String!, $timeframe: String!) {
  candleClosed(exchange: $exchange, symbol: $symbol, timeframe: $timeframe) { time open high low close volume takerBuyVolume }
}`;

export const DERIVATIVES_CLOSED = `subscription DashboardContext($exchange: String!, $symbol: String!, $timeframe: String!) {
  derivativesClosed(exchange: $exchange, symbol: $symbol, timeframe: $timeframe) { time openInterest }
}`;

export const FUNDING_SETTLED = `subscription DashboardFunding($exchange: String!, $symbol: String!) {
  fundingSettled(exchange: $exchange, symbol: $symbol, normalized: true) { time rateNormalized premium }
}`;

export const QUALITY_CHANGED = `subscription DashboardQuality($exchange: String!, $symbol: String!) {
  qualityChanged(exchange: $exchange, symbol: $symbol) { timeframe dqs band missingIntervals { start end } }
}`;

export type { Candle, FundingRow };
