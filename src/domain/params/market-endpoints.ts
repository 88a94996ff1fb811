/**
 * Every endpoint of the API, declared once (see endpoint.ts): its parameters in check order, the
 * rules between them, the request they make, and how much a page can hold. REST and GraphQL parse
 * with these, the OpenAPI document and the GraphQL arguments derive from them, and the cost rules
 * read their bounds. Check order: each parameter in turn, each rule right after the parameter it
 * names; tier rules (403) come after the whole endpoint, in the services.
 */
import { AppError } from '../errors';
import { FUNDING_TIMEFRAME_FEATURES } from '../feature-catalogue';
import type {
  CandleEventsRequest,
  CandleRequest,
  DerivativesEventsRequest,
  DerivativesRequest,
  FeatureRequest,
  FundingEventsRequest,
  FundingRequest,
  MarketRef,
  MultiAssetRequest,
  QualityRequest,
} from '../market';
import { multiAssetSource } from '../multi-asset';
import { parseTimestamp } from '../time';
import { FUNDING_INTERVAL_MS } from '../timeframe';
import type { Exchanges } from '../exchanges';
import {
  DEFAULT_OHLCV_LIMIT,
  MAX_ROWS,
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
  TRADE_FLOW,
  FUNDING_FIELDS,
} from './market-params';
import type { RawParams } from './param';
import { defineEndpoint, type ParamMap, type EndpointRule } from './endpoint';

/** start is inclusive, end defaults to now; start after end is refused (right after `end`). */
function timeRange<P extends ParamMap>(): EndpointRule<P> {
  return {
    after: 'end',
    codes: ['INVALID_TIME_RANGE'],
    check: (v, nowMs) => {
      const start = v.start as number;
      const end = (v.end as number | undefined) ?? nowMs;
      if (start > end) throw new AppError('INVALID_TIME_RANGE', 'start is after end');
    },
  };
}

/** A full page, whatever the arguments. */
const fullPage = () => ({ rows: MAX_ROWS, symbols: 0 });

/** Funding rows between start and end (end: now): one per funding hour, both ends included. */
function fundingRows(raw: RawParams, nowMs: number): number {
  const start = typeof raw.start === 'string' ? parseTimestamp(raw.start) : null;
  const end = raw.end === undefined || raw.end === null ? nowMs : typeof raw.end === 'string' ? parseTimestamp(raw.end) : null;
  return start === null || end === null ? MAX_ROWS : Math.max(1, Math.floor((end - start) / FUNDING_INTERVAL_MS) + 1);
}

/** A page of `limit` rows (default 1,000). */
const limitedPage = (raw: RawParams) => ({ rows: typeof raw.limit === 'number' ? raw.limit : DEFAULT_OHLCV_LIMIT, symbols: 0 });

/** What the perpetual's context is called where the spot exchange is refused. */
const CONTEXT = 'perpetual context (open interest, mark and oracle prices)';

export function marketEndpoints(exchanges: Exchanges) {
  const exchange = exchanges.exchange;
  const perpOnly = <P extends ParamMap>(what?: string): EndpointRule<P> => ({
    after: 'exchange',
    codes: ['INVALID_EXCHANGE'],
    check: (v) => void exchanges.requirePerp(v.exchange as string, what),
  });

  const ohlcv = defineEndpoint(
    'ohlcv',
    { symbol: SYMBOL, exchange, timeframe: TIMEFRAME, start: START, end: END, limit: OHLCV_LIMIT, fields: TRADE_FLOW },
    (v, nowMs): CandleRequest => ({ ...v, end: v.end ?? nowMs, limit: v.limit ?? DEFAULT_OHLCV_LIMIT }),
    { rules: [timeRange()], bounds: limitedPage },
  );

  const derivatives = defineEndpoint(
    'derivatives',
    { symbol: SYMBOL, exchange, timeframe: TIMEFRAME, start: START, end: END, limit: OHLCV_LIMIT },
    (v, nowMs): DerivativesRequest => ({ ...v, end: v.end ?? nowMs, limit: v.limit ?? DEFAULT_OHLCV_LIMIT }),
    { rules: [perpOnly(CONTEXT), timeRange()], bounds: limitedPage },
  );

  const funding = defineEndpoint(
    'funding',
    { symbol: SYMBOL, exchange, start: START, end: END, normalized: NORMALIZED, fields: FUNDING_FIELDS },
    (v, nowMs): FundingRequest => ({ ...v, end: v.end ?? nowMs, normalized: v.normalized ?? false }),
    {
      rules: [perpOnly(), timeRange()],
      bounds: (raw, nowMs) => ({ rows: fundingRows(raw, nowMs), symbols: 0 }),
    },
  );

  const features = defineEndpoint(
    'features',
    { symbol: SYMBOL, exchange, timeframe: FEATURE_TIMEFRAME, features: FEATURES, start: START, end: END },
    ({ features: names, ...v }, nowMs): FeatureRequest => ({ ...v, names, end: v.end ?? nowMs }),
    {
      bounds: fullPage,
      rules: [
        {
          after: 'features',
          codes: ['UNKNOWN_FEATURES'],
          check: ({ timeframe, features: names }) => {
            const misplaced = names!.filter((n) => FUNDING_TIMEFRAME_FEATURES.has(n) !== (timeframe === 'funding'));
            if (misplaced.length === 0) return;
            const where = timeframe === 'funding' ? 'a candle timeframe (1m to 1d)' : 'timeframe funding';
            throw new AppError('UNKNOWN_FEATURES', `${misplaced.join(', ')} ${misplaced.length > 1 ? 'are' : 'is'} served on ${where}, not on ${timeframe}`);
          },
        },
        {
          after: 'features',
          codes: ['INVALID_EXCHANGE'],
          check: ({ timeframe, exchange: venue }) => {
            if (timeframe === 'funding' && !exchanges.isPerpetual(venue!)) {
              throw new AppError('INVALID_EXCHANGE', `timeframe funding exists on ${exchanges.perpetualWhere()} only; use ${exchanges.perpetualHint()}`, {
                parameter: 'exchange',
              });
            }
          },
        },
        timeRange(),
      ],
    },
  );

  const multiAsset = defineEndpoint(
    'multiAsset',
    { symbols: SYMBOLS, exchange, timeframe: TIMEFRAME, field: FIELD, start: START, end: END },
    (v, nowMs): MultiAssetRequest => ({ ...v, end: v.end ?? nowMs }),
    {
      rules: [
        { after: 'field', codes: ['INVALID_EXCHANGE', 'INVALID_PARAMETER'], check: (v) => void multiAssetSource(v.field!, v.exchange!, v.timeframe!, exchanges) },
        timeRange(),
      ],
      bounds: (raw) => ({ rows: MAX_ROWS, symbols: Array.isArray(raw.symbols) ? raw.symbols.length : raw.symbols === undefined ? 0 : 1 }),
    },
  );

  const quality = defineEndpoint(
    'quality',
    { symbol: SYMBOL, exchange, timeframe: OPTIONAL_TIMEFRAME },
    (v): QualityRequest => v,
  );

  const markets = defineEndpoint('markets', { exchange: exchanges.optionalExchange }, (v) => ({ exchange: v.exchange ?? null }));

  const market = defineEndpoint('market', { symbol: SYMBOL, exchange }, (v): MarketRef => v);

  // The subscriptions: what a market's events are filtered by (no window: events from now on).
  const candleEvents = defineEndpoint('candleEvents', { symbol: SYMBOL, exchange, timeframe: TIMEFRAME }, (v): CandleEventsRequest => v);
  const fundingEvents = defineEndpoint(
    'fundingEvents',
    { symbol: SYMBOL, exchange, normalized: NORMALIZED },
    (v): FundingEventsRequest => ({ ...v, normalized: v.normalized ?? false }),
    { rules: [perpOnly()] },
  );
  const derivativesEvents = defineEndpoint(
    'derivativesEvents',
    { symbol: SYMBOL, exchange, timeframe: TIMEFRAME },
    (v): DerivativesEventsRequest => v,
    { rules: [perpOnly(CONTEXT)] },
  );
  const qualityEvents = defineEndpoint('qualityEvents', { symbol: SYMBOL, exchange }, (v): MarketRef => v);

  return { ohlcv, derivatives, funding, features, multiAsset, quality, markets, market, candleEvents, fundingEvents, derivativesEvents, qualityEvents };
}

export type MarketEndpoints = ReturnType<typeof marketEndpoints>;
