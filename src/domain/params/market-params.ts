/**
 * The parameters of the market-data endpoints, each declared once: name, schema, codes, and the
 * words the OpenAPI document and GraphQL show. The exchange parameter depends on configuration
 * (EXCHANGES and the EXCHANGE_* names) and is built by Exchanges (domain/exchanges.ts).
 */
import { z } from 'zod';
import { FEATURE_NAMES } from '../feature-catalogue';
import { FUNDING_ROW_FIELDS, TRADE_FLOW_FIELDS } from '../market';
import { parseTimestamp } from '../time';
import { CANDLE_TIMEFRAMES, FEATURE_TIMEFRAMES } from '../timeframe';
import { listParam, param, type Param } from './param';

/** Rows per page at most, on every list endpoint. */
export const MAX_ROWS = 10_000;
export const DEFAULT_OHLCV_LIMIT = 1_000;

const SYMBOL_RE = /^[A-Za-z0-9]{1,20}-[A-Za-z0-9]{1,20}$/;
const symbolSchema = z
  .string()
  .regex(SYMBOL_RE)
  .transform((s) => s.toUpperCase());
const symbolMessage = (t: string, name: string) => `${name} "${t}" must look like BASE-QUOTE, e.g. BTC-USDT`;
const SYMBOL_WORDS = { description: 'BASE-QUOTE, case-insensitive (served upper-case).', examples: ['BTC-USDT'] };

export const SYMBOL = param('symbol', { required: true, schema: symbolSchema, message: symbolMessage, ...SYMBOL_WORDS });

export const SYMBOLS = listParam('symbols', {
  required: true,
  schema: symbolSchema,
  message: symbolMessage,
  missing: { code: 'MISSING_SYMBOLS', message: 'symbols must name at least one symbol' },
  ...SYMBOL_WORDS,
});

/** The venue parameter: one of the configured venue names, case-insensitive. */
export function exchangeParam<Required extends boolean>(names: readonly string[], required: Required): Param<string, Required> {
  return param('exchange', {
    required,
    code: 'INVALID_EXCHANGE',
    schema: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(names as [string, ...string[]])),
    description: 'Venue.',
    examples: [names[0]],
    message: (t) => `exchange "${t}" is not one of ${names.join(', ')}`,
  });
}

function timeframeParam<const T extends readonly [string, ...string[]], Required extends boolean>(
  values: T,
  required: Required,
  graphql: Param['graphql'] = {},
): Param<T[number], Required> {
  return param('timeframe', {
    required,
    code: 'INVALID_TIMEFRAME',
    schema: z.enum(values),
    description: 'Candle timeframe.',
    examples: ['1h'],
    message: (t) => `timeframe "${t}" is not one of ${values.join(', ')}`,
    graphql,
  });
}

export const TIMEFRAME = timeframeParam(CANDLE_TIMEFRAMES, true);
export const OPTIONAL_TIMEFRAME = timeframeParam(CANDLE_TIMEFRAMES, false);
/** /v1/features also serves the hourly funding features under timeframe `funding`. */
export const FEATURE_TIMEFRAME = timeframeParam(FEATURE_TIMEFRAMES, true, {
  description: '1m to 1d for technical features; funding for funding/premium features',
});

/**
 * `start` and `end`. `end` has no example: "Try it out" would send it, and its default (now) is
 * what users want.
 */
function instantParam<Required extends boolean>(name: 'start' | 'end', required: Required, description: string): Param<number, Required> {
  return param(name, {
    required,
    code: 'INVALID_TIMESTAMP',
    schema: z
      .string()
      .refine((s) => parseTimestamp(s) !== null)
      .transform((s) => parseTimestamp(s)!),
    description,
    examples: required ? ['2024-01-01T00:00:00Z', '1704067200000'] : [],
    message: (t) => `${name} "${t}" is not ISO 8601 or Unix milliseconds`,
  });
}

export const START = instantParam('start', true, 'Inclusive start: ISO 8601 (UTC if no offset) or Unix milliseconds.');
export const END = instantParam('end', false, 'Inclusive end (default: now): ISO 8601 or Unix milliseconds.');

export const OHLCV_LIMIT = param('limit', {
  kind: 'integer',
  schema: z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN), z.number().int().min(1).max(MAX_ROWS)),
  description: `Rows per page (default ${DEFAULT_OHLCV_LIMIT.toLocaleString('en-US')}).`,
  default: DEFAULT_OHLCV_LIMIT,
  message: () => `limit must be an integer from 1 to ${MAX_ROWS.toLocaleString('en-US')}`,
  graphql: { description: '1-10,000; default 1,000' },
});

export const NORMALIZED = param('normalized', {
  kind: 'boolean',
  schema: z.enum(['true', 'false']).transform((v) => v === 'true'),
  description: 'Add rate_normalized (30-day z-score) and premium.',
  default: false,
  message: (_t, name) => `${name} must be true or false`,
  graphql: { defaultValue: false },
});

/** REST `features`; GraphQL keeps the name `names` for the same argument. */
export const FEATURES = listParam('features', {
  required: true,
  code: 'UNKNOWN_FEATURES',
  schema: z.enum(FEATURE_NAMES),
  description: 'Feature names (GET /v1/features/available describes them).',
  examples: ['rsi_14'],
  message: (t) => `unknown features: ${t} (GET /v1/features/available lists them)`,
  missing: { code: 'MISSING_FEATURES', message: 'features must name at least one feature (GET /v1/features/available)' },
  graphql: { name: 'names' },
});

/**
 * `fields` on /v1/ohlcv: trade-flow values appended to each row, in the order asked. REST only:
 * GraphQL candles select them like any field.
 */
export const TRADE_FLOW = listParam('fields', {
  schema: z.enum(TRADE_FLOW_FIELDS),
  description: `Trade-flow values to append to each row, in the order asked, of ${TRADE_FLOW_FIELDS.join(', ')} (null where the venue gives none).`,
  message: (t) => `unknown fields: ${t} (one of ${TRADE_FLOW_FIELDS.join(', ')})`,
  graphql: { omit: true },
});

/**
 * `fields` on /v1/funding: each settlement's interval and hourly rate, appended in the order
 * asked. REST only: GraphQL funding rows select them like any field.
 */
export const FUNDING_FIELDS = listParam('fields', {
  schema: z.enum(FUNDING_ROW_FIELDS),
  description: `Values to append to each row, in the order asked, of ${FUNDING_ROW_FIELDS.join(', ')}: the hours the settlement covers, and rate / interval_hours.`,
  message: (t) => `unknown fields: ${t} (one of ${FUNDING_ROW_FIELDS.join(', ')})`,
  graphql: { omit: true },
});

/** Candle fields, funding_rate, the perpetual's context, or any feature (venue and timeframe rules apply on top). */
export const CANDLE_FIELDS = ['open', 'high', 'low', 'close', 'volume'] as const;
/** Multi-asset fields read from the perpetual's context (GET /v1/derivatives). */
export const DERIVATIVES_FIELDS = ['open_interest', 'mark_price'] as const;
export const MULTI_ASSET_FIELDS = [...CANDLE_FIELDS, 'funding_rate', ...FEATURE_NAMES, ...DERIVATIVES_FIELDS] as const;

export const FIELD = param('field', {
  required: true,
  schema: z.enum(MULTI_ASSET_FIELDS as unknown as [string, ...string[]]),
  description: 'The one field served for every symbol: a candle field, funding_rate (exchange perp, timeframe 1h) or a feature.',
  examples: ['close'],
  message: (t) => `field "${t}" is not open, high, low, close, volume, funding_rate or a feature name (GET /v1/features/available)`,
});
