/**
 * What the API serves about markets, one type per concept. Values are already the API's
 * strings (decimals with fixed places, times as `YYYY-MM-DDTHH:MM:SS+00:00`); the REST and
 * GraphQL edges only name and arrange them (rest/serializers, graphql/types).
 */
import type { CandleTimeframe, FeatureTimeframe } from './timeframe';

/** A market named by the caller: venue and symbol, validated and normalized. */
export interface MarketRef {
  exchange: string;
  symbol: string;
}

export interface Candle {
  /** Open time. */
  time: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  /** The trade flow, only on reads that ask for it (null where the venue did not give it). */
  trades?: string | null;
  quoteVolume?: string | null;
  takerBuyVolume?: string | null;
  takerBuyQuoteVolume?: string | null;
}

/** The trade-flow fields a candle read may add (REST `fields`), by their REST names. */
export const TRADE_FLOW_FIELDS = ['trades', 'quote_volume', 'taker_buy_volume', 'taker_buy_quote_volume'] as const;
export type TradeFlowField = (typeof TRADE_FLOW_FIELDS)[number];

/** What `fields` may append to a funding row (GET /v1/funding). */
export const FUNDING_ROW_FIELDS = ['interval_hours', 'rate_hourly'] as const;
export type FundingRowField = (typeof FUNDING_ROW_FIELDS)[number];

/** A minute (or a rollup's bucket) of a perpetual's context, as served. */
export interface Derivatives {
  /** Open time. */
  time: string;
  /** Open interest at the end of the period (base units); its open, high and low over it. Null where a backfill could not know it. */
  openInterest: string | null;
  openInterestOpen: string | null;
  openInterestHigh: string | null;
  openInterestLow: string | null;
  /** openInterest x markPrice. */
  openInterestValue: string | null;
  markPrice: string;
  oraclePrice: string;
  midPrice: string | null;
  /** The venue's predicted funding rate (null in a backfilled period). */
  predictedFundingRate: string | null;
  /** The venue's own premium field (not funding's perp/spot premium). */
  venuePremium: string | null;
}

/**
 * The context a backfill cannot know (the venue keeps no minute history of it): null in a
 * backfilled period. Declared nullable only where a served exchange backfills its context
 * (Exchanges.backfillsContext), so a configuration without one keeps its non-null contract.
 */
export const BACKFILL_GAPS = [
  'openInterest',
  'openInterestOpen',
  'openInterestHigh',
  'openInterestLow',
  'openInterestValue',
  'predictedFundingRate',
] as const satisfies ReadonlyArray<keyof Derivatives>;

export const isBackfillGap = (field: string): boolean => (BACKFILL_GAPS as readonly string[]).includes(field);

export interface FundingRate {
  time: string;
  /** The venue's rate for the settlement's interval. */
  rate: string;
  /** Hours the settlement covers (an integer string). */
  intervalHours: string;
  /** rate / intervalHours, 8 places. */
  rateHourly: string;
  /** Only on normalized reads: the 30-day z-score (null in warm-up or at zero deviation). */
  rateNormalized?: string | null;
  /** Only on normalized reads: (perp - spot) / spot on the previous hour's closes. */
  premium?: string | null;
}

/** Feature values at one time, wide: one property per requested feature (null: not computable). */
export type FeatureRow = { time: string } & Record<string, string | null>;

export interface SymbolValue {
  symbol: string;
  value: string;
}

/** One time across symbols; a symbol without a value at that time is absent from `values`. */
export interface MultiAssetRow {
  time: string;
  values: SymbolValue[];
}

/**
 * A row as the database printed it, one text per column (NULL stays null): what the hot page
 * reads hand over, rendered as served by their layout (candle-text.ts), never by an ORM object.
 */
export type TextRow = Array<string | null>;

/** One page of rows and where the next one starts (null when none is left). */
export interface Page<Row> {
  count: number;
  nextStart: string | null;
  data: Row[];
}

/** A page of no rows. */
export const emptyPage = <Row>(): Page<Row> => ({ count: 0, nextStart: null, data: [] });

/** The page of rows read as `limit + 1`: the extra row's time is where the next page starts. */
export function pageOf<Row>(rows: Row[], limit: number, timeOf: (row: Row) => string): Page<Row> {
  if (rows.length <= limit) return { count: rows.length, nextStart: null, data: rows };
  const nextStart = timeOf(rows[limit]);
  rows.length = limit;
  return { count: limit, nextStart, data: rows };
}

/** First and last stored time of a market at one timeframe (or funding, or the perpetual's context at 1m). */
export interface Coverage {
  timeframe: FeatureTimeframe | 'derivatives';
  first: string;
  last: string | null;
}

/** Live ingestion of a market, as its ingesting process last reported it. */
export interface IngestState {
  /** Whether the venue socket was connected at the last report (false once reports stop). */
  connected: boolean;
  /** Open time of the newest stored 1m candle that has closed. */
  lastClosed: string | null;
  /** Seconds from that candle's close to now. */
  lag: number | null;
}

/** Seconds from the close of the 1m candle opening at `lastClosedOpen` to `nowMs` (never negative). */
export function ingestLagSeconds(lastClosedOpen: number, nowMs: number): number {
  return Math.max(0, (nowMs - lastClosedOpen - 60_000) / 1000);
}

export interface MarketSummary extends MarketRef {
  coverage: Coverage[];
  /** A perpetual's current funding interval in hours: its newest settlement's (absent: none stored). */
  fundingIntervalHours?: number;
}

/** A validated read of candles (GET /v1/ohlcv, GraphQL `market.candles`). */
export interface CandleRequest extends MarketRef {
  timeframe: CandleTimeframe;
  start: number;
  end: number;
  limit: number;
  /** The trade-flow fields asked for, in order; absent when none (the read and its tag as before). */
  fields?: TradeFlowField[];
}

/** A validated read of a perpetual's context (GET /v1/derivatives, GraphQL `market.derivatives`). */
export interface DerivativesRequest extends MarketRef {
  timeframe: CandleTimeframe;
  start: number;
  end: number;
  limit: number;
}

/** A validated subscription to a market's closed candles of one timeframe (GraphQL `candleClosed`). */
export interface CandleEventsRequest extends MarketRef {
  timeframe: CandleTimeframe;
}

/** A validated subscription to a perpetual market's closed context periods (GraphQL `derivativesClosed`). */
export interface DerivativesEventsRequest extends MarketRef {
  timeframe: CandleTimeframe;
}

/** A validated subscription to a perpetual market's settled funding (GraphQL `fundingSettled`). */
export interface FundingEventsRequest extends MarketRef {
  normalized: boolean;
}

export interface FundingRequest extends MarketRef {
  start: number;
  end: number;
  normalized: boolean;
  /** The row fields asked for, in order; absent when none (the read and its tag as before). */
  fields?: FundingRowField[];
}

export interface FeatureRequest extends MarketRef {
  timeframe: FeatureTimeframe;
  names: string[];
  start: number;
  end: number;
}

export interface MultiAssetRequest {
  exchange: string;
  symbols: string[];
  timeframe: CandleTimeframe;
  field: string;
  start: number;
  end: number;
}

export interface QualityRequest extends MarketRef {
  /** One timeframe, or every timeframe of the caller's plan. */
  timeframe?: CandleTimeframe;
}
