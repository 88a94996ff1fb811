/**
 * Every read of the API, declared once (see read.ts): its parameters in check order, the rules
 * between them, and the request they make. Services parse with these (REST query strings and
 * GraphQL arguments alike), the OpenAPI document lists these parameters, GraphQL derives its
 * arguments from them, and the cost rules read their row bounds.
 *
 * Check order within a read: each parameter in turn, each rule right after the parameter it
 * names. Tier rules (403) come after the whole read, in the services.
 */
import { AppError } from '../errors';
import { FUNDING_TIMEFRAME_FEATURES } from '../feature-catalogue';
import type { CandleRequest, FeatureRequest, FundingRequest, MarketRef, MultiAssetRequest, QualityRequest } from '../market';
import { multiAssetSource } from '../multi-asset';
import type { Venues } from '../venues';
import {
  DEFAULT_OHLCV_LIMIT,
  END,
  FEATURE_TIMEFRAME,
  FEATURES,
  FIELD,
  NORMALIZED,
  OHLCV_LIMIT,
  OPTIONAL_TIMEFRAME,
  START,
  SYMBOL,
  SYMBOLS,
  TIMEFRAME,
} from './market-params';
import { defineRead, type ParamMap, type Read, type ReadRule } from './read';

/** start is inclusive, end defaults to now; start after end is refused (right after `end`). */
function timeRange<P extends ParamMap>(): ReadRule<P> {
  return {
    after: 'end',
    check: (v, nowMs) => {
      const start = v.start as number;
      const end = (v.end as number | undefined) ?? nowMs;
      if (start > end) throw new AppError('INVALID_TIME_RANGE', 'start is after end');
    },
  };
}

export function marketReads(venues: Venues) {
  const exchange = venues.exchange;

  const ohlcv = defineRead(
    'ohlcv',
    { symbol: SYMBOL, exchange, timeframe: TIMEFRAME, start: START, end: END, limit: OHLCV_LIMIT },
    (v, nowMs): CandleRequest => ({ ...v, end: v.end ?? nowMs, limit: v.limit ?? DEFAULT_OHLCV_LIMIT }),
    [timeRange()],
  );

  const funding = defineRead(
    'funding',
    { symbol: SYMBOL, exchange, start: START, end: END, normalized: NORMALIZED },
    (v, nowMs): FundingRequest => ({ ...v, end: v.end ?? nowMs, normalized: v.normalized ?? false }),
    [{ after: 'exchange', check: (v) => venues.requirePerp(v.exchange!) }, timeRange()],
  );

  const features = defineRead(
    'features',
    { symbol: SYMBOL, exchange, timeframe: FEATURE_TIMEFRAME, features: FEATURES, start: START, end: END },
    ({ features: names, ...v }, nowMs): FeatureRequest => ({ ...v, names, end: v.end ?? nowMs }),
    [
      {
        after: 'features',
        check: ({ timeframe, features: names }) => {
          const misplaced = names!.filter((n) => FUNDING_TIMEFRAME_FEATURES.has(n) !== (timeframe === 'funding'));
          if (misplaced.length === 0) return;
          const where = timeframe === 'funding' ? 'a candle timeframe (1m to 1d)' : 'timeframe funding';
          throw new AppError('UNKNOWN_FEATURES', `${misplaced.join(', ')} ${misplaced.length > 1 ? 'are' : 'is'} served on ${where}, not on ${timeframe}`);
        },
      },
      {
        after: 'features',
        check: ({ timeframe, exchange: venue }) => {
          if (timeframe === 'funding' && venue !== venues.perp) {
            throw new AppError('INVALID_EXCHANGE', `timeframe funding exists on the perpetual venue only; use exchange=${venues.perp}`, {
              parameter: 'exchange',
            });
          }
        },
      },
      timeRange(),
    ],
  );

  const multiAsset = defineRead(
    'multiAsset',
    { symbols: SYMBOLS, exchange, timeframe: TIMEFRAME, field: FIELD, start: START, end: END },
    (v, nowMs): MultiAssetRequest => ({ ...v, end: v.end ?? nowMs }),
    [{ after: 'field', check: (v) => void multiAssetSource(v.field!, v.exchange!, v.timeframe!, venues) }, timeRange()],
  );

  const quality = defineRead(
    'quality',
    { symbol: SYMBOL, exchange, timeframe: OPTIONAL_TIMEFRAME },
    (v): QualityRequest => v,
  );

  const markets = defineRead('markets', { exchange: venues.optionalExchange }, (v) => ({ exchange: v.exchange ?? null }));

  const market = defineRead('market', { symbol: SYMBOL, exchange }, (v): MarketRef => v);

  return { ohlcv, funding, features, multiAsset, quality, markets, market };
}

export type MarketReads = ReturnType<typeof marketReads>;

/** Every read by name, for the document and the GraphQL cost rules. */
export type AnyRead = Read;
