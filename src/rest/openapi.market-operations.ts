/**
 * The market-data routes' operations for the OpenAPI document (openapi.operations.ts has the
 * shapes and the other routes): each route's parameters are its endpoint's own, its success
 * schema its serializer's.
 */
import type { ErrorCode } from '../domain/errors';
import type { Exchanges } from '../domain/exchanges';
import { MAX_ROWS } from '../domain/params/market-params';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import { FORMAT } from './format';
import type { Operation } from './openapi.operations';
import { CANDLE_PAGE_SCHEMA } from './serializers/candle.serializer';
import { derivativesPageSchema } from './serializers/derivatives.serializer';
import { CATALOGUE_SCHEMA, FEATURE_PAGE_SCHEMA } from './serializers/feature.serializer';
import { FUNDING_PAGE_SCHEMA } from './serializers/funding.serializer';
import { MARKETS_SCHEMA } from './serializers/market.serializer';
import { MULTI_ASSET_PAGE_SCHEMA } from './serializers/multi-asset.serializer';
import { QUALITY_SCHEMA } from './serializers/quality.serializer';

const TIER: ErrorCode[] = ['TIER_LIMIT_EXCEEDED'];

/**
 * /v1/ohlcv, /v1/funding, /v1/derivatives, /v1/multi-asset, /v1/markets, /v1/features and
 * /v1/quality, in the document's order, for the served `exchanges`.
 */
export function marketOperations(endpoints: MarketEndpoints, exchanges: Exchanges): Operation[] {
  return [
    {
      method: 'get',
      path: '/v1/ohlcv',
      operationId: 'getOhlcv',
      tag: 'Market data',
      summary: 'OHLCV candles of one market',
      description: `Closed candles from start to end, oldest first, up to limit rows (at most ${MAX_ROWS.toLocaleString('en-US')}); next_start pages on.`,
      security: 'apiKey',
      endpoint: endpoints.ohlcv,
      query: [FORMAT],
      ok: { status: 200, description: 'A page of candles.', schema: CANDLE_PAGE_SCHEMA, nextStartHeader: true, conditional: true },
      errors: TIER,
    },
    {
      method: 'get',
      path: '/v1/funding',
      operationId: 'getFunding',
      tag: 'Market data',
      summary: 'Hourly funding rates of a perpetual market',
      description: `Optionally with the 30-day z-score and the perp/spot premium (normalized=true). Pages of ${MAX_ROWS.toLocaleString('en-US')} rows.`,
      security: 'apiKey',
      endpoint: endpoints.funding,
      query: [FORMAT],
      ok: { status: 200, description: 'A page of funding rows.', schema: FUNDING_PAGE_SCHEMA, nextStartHeader: true, conditional: true },
      errors: TIER,
    },
    {
      method: 'get',
      path: '/v1/derivatives',
      operationId: 'getDerivatives',
      tag: 'Market data',
      summary: "A perpetual market's open interest, mark, oracle and mid prices, predicted funding and premium",
      description:
        'Per closed period since recording started (GET /v1/markets: coverage derivatives): open interest as open/high/low/close, ' +
        `the other values as the period's last. A minute without an update from the venue is absent. Pages of up to limit rows (at most ${MAX_ROWS.toLocaleString('en-US')}).`,
      security: 'apiKey',
      endpoint: endpoints.derivatives,
      query: [FORMAT],
      ok: { status: 200, description: 'A page of context rows.', schema: derivativesPageSchema(exchanges.backfillsContext()), nextStartHeader: true, conditional: true },
      errors: TIER,
    },
    {
      method: 'get',
      path: '/v1/multi-asset',
      operationId: 'getMultiAsset',
      tag: 'Market data',
      summary: 'One field across several symbols, aligned by time',
      description: 'A symbol without a value at a time has no property in that row.',
      security: 'apiKey',
      endpoint: endpoints.multiAsset,
      query: [FORMAT],
      ok: { status: 200, description: 'A page of wide rows, one property per symbol.', schema: MULTI_ASSET_PAGE_SCHEMA, nextStartHeader: true, conditional: true },
      errors: TIER,
    },
    {
      method: 'get',
      path: '/v1/markets',
      operationId: 'listMarkets',
      tag: 'Market data',
      summary: 'Markets and their coverage per timeframe',
      security: 'apiKey',
      endpoint: endpoints.markets,
      ok: { status: 200, description: 'Every market with the first and last time of each timeframe.', schema: MARKETS_SCHEMA, conditional: true },
    },
    {
      method: 'get',
      path: '/v1/features',
      operationId: 'getFeatures',
      tag: 'Features',
      summary: 'Pre-computed features in wide format',
      description: 'Values are computed over the full history, so they do not depend on the requested window. Funding and premium features are served on timeframe funding.',
      security: 'apiKey',
      endpoint: endpoints.features,
      query: [FORMAT],
      ok: { status: 200, description: 'A page of feature rows.', schema: FEATURE_PAGE_SCHEMA, nextStartHeader: true, conditional: true },
      errors: TIER,
    },
    {
      method: 'get',
      path: '/v1/features/available',
      operationId: 'listFeatures',
      tag: 'Features',
      summary: 'The feature catalogue',
      security: 'apiKey',
      ok: { status: 200, description: 'Every feature: name, description, category.', schema: CATALOGUE_SCHEMA },
    },
    {
      method: 'get',
      path: '/v1/quality',
      operationId: 'getQuality',
      tag: 'Quality',
      summary: 'Data Quality Score per timeframe',
      description: 'Only the timeframes of the caller\'s plan are returned (free: 1h, 4h, 1d).',
      security: 'apiKey',
      endpoint: endpoints.quality,
      ok: { status: 200, description: 'The stored quality records.', schema: QUALITY_SCHEMA, conditional: true },
      errors: ['TIER_LIMIT_EXCEEDED', 'QUALITY_NOT_FOUND'],
    },
  ];
}
