/**
 * The input schemas of every read: one zod schema per parameter, transport-free. REST passes
 * query-string values, GraphQL its arguments; both are checked by the same schemas, in the same
 * order, with the same codes, and the OpenAPI document is generated from these very objects
 * (rest/openapi.ts), so the documented parameters cannot drift from the validated ones.
 *
 * A schema validates the trimmed text of one value. Its JSON Schema (zod's `input` view) is what
 * the document shows; `.meta()` adds the description and examples there.
 */
import { z } from 'zod';
import { AppError, type ErrorCode } from './errors';
import { parseTimestamp } from './time';
import { FEATURE_CATALOGUE } from './feature-catalogue';
import { CANDLE_TIMEFRAMES, type CandleTimeframe } from './timeframe';

/** Raw parameter values as they arrive (strings, or typed values from GraphQL). */
export type RawParams = Record<string, unknown>;

export const MAX_ROWS = 10_000;
export const DEFAULT_OHLCV_LIMIT = 1_000;

/** One parameter: its schema, whether it is required, and the errors a bad value gives. */
export interface Param<T = unknown> {
  readonly name: string;
  readonly required: boolean;
  /** Checks one value (one item of a list parameter). */
  readonly schema: z.ZodType<T>;
  /** A list parameter: comma-separated text, or an array from GraphQL. */
  readonly list: boolean;
  /** The error for a value (or, for a list, the comma-joined items) the schema refuses. */
  invalid(text: string): AppError;
  /** The error when a required parameter is absent or empty. */
  missing(): AppError;
  /** The codes this parameter alone can cause (for the document). */
  readonly codes: readonly ErrorCode[];
}

interface ParamOptions<T> {
  schema: z.ZodType<T>;
  message: (text: string, name: string) => string;
  required?: boolean;
  /** Default INVALID_PARAMETER. */
  code?: ErrorCode;
  list?: boolean;
  /** Default MISSING_PARAMETER "<name> is required". */
  missing?: { code: ErrorCode; message: string };
}

export function param<T>(name: string, o: ParamOptions<T>): Param<T> {
  const code = o.code ?? 'INVALID_PARAMETER';
  const required = o.required ?? false;
  const missing = o.missing ?? { code: 'MISSING_PARAMETER' as const, message: `${name} is required` };
  return {
    name,
    required,
    schema: o.schema,
    list: o.list ?? false,
    invalid: (text) => new AppError(code, o.message(text, name), { parameter: name }),
    missing: () => new AppError(missing.code, missing.message, { parameter: name }),
    codes: [...new Set([...(required ? [missing.code] : []), code])],
  };
}

function text(raw: RawParams, name: string): string | undefined {
  const v = raw[name];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) {
    throw new AppError('INVALID_PARAMETER', `${name} was given more than once`, { parameter: name });
  }
  const s = String(v).trim();
  return s === '' ? undefined : s;
}

/** A value checked by its parameter's schema; undefined when absent (an error if required). */
export function read<T>(p: Param<T>, raw: RawParams): T | undefined {
  const v = text(raw, p.name);
  if (v === undefined) {
    if (p.required) throw p.missing();
    return undefined;
  }
  return check(p, v);
}

/** A required parameter's value. */
export function need<T>(p: Param<T>, raw: RawParams): T {
  const v = read(p, raw);
  if (v === undefined) throw p.missing();
  return v;
}

/** One present value checked by the parameter's schema (also for values from elsewhere: the CLI). */
export function check<T>(p: Param<T>, value: string): T {
  const r = p.schema.safeParse(value.trim());
  if (!r.success) throw p.invalid(value);
  return r.data;
}

/**
 * A list parameter: comma-separated text (or an array from GraphQL); items trimmed, empty
 * ones dropped, de-duplicated, order kept. Every item is checked; the refused ones are named
 * together in one error.
 */
export function readList<T>(p: Param<T>, raw: RawParams): T[] {
  const v = raw[p.name];
  const items = (Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unique = [...new Set(items)];
  const checked = unique.map((s) => [s, p.schema.safeParse(s)] as const);
  const bad = checked.filter(([, r]) => !r.success).map(([s]) => s);
  if (bad.length) throw p.invalid(bad.join(', '));
  if (unique.length === 0 && p.required) throw p.missing();
  return [...new Set(checked.map(([, r]) => r.data as T))];
}

// ---- the parameters --------------------------------------------------------------------

const SYMBOL_RE = /^[A-Za-z0-9]{1,20}-[A-Za-z0-9]{1,20}$/;
const symbolSchema = z
  .string()
  .regex(SYMBOL_RE)
  .meta({ description: 'BASE-QUOTE, case-insensitive (served upper-case).', examples: ['BTC-USDT'] })
  .transform((s) => s.toUpperCase());

const symbolMessage = (t: string, name: string) => `${name} "${t}" must look like BASE-QUOTE, e.g. BTC-USDT`;

export const SYMBOL = param('symbol', { required: true, schema: symbolSchema, message: symbolMessage });

/** `symbols`: the items of a list, each a symbol. */
export const SYMBOLS = param('symbols', {
  required: true,
  list: true,
  schema: symbolSchema,
  message: symbolMessage,
  missing: { code: 'MISSING_SYMBOLS', message: 'symbols must name at least one symbol' },
});

/** The venue parameter: one of the configured venue names, case-insensitive. */
export function exchangeParam(names: readonly string[], required = true): Param<string> {
  return param('exchange', {
    required,
    code: 'INVALID_EXCHANGE',
    schema: z.preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.enum(names as [string, ...string[]]).meta({ description: 'Venue.', examples: [names[0]] }),
    ),
    message: (t) => `exchange "${t}" is not one of ${names.join(', ')}`,
  });
}

function timeframeParam<const T extends readonly [string, ...string[]]>(values: T, required = true): Param<T[number]> {
  return param('timeframe', {
    required,
    code: 'INVALID_TIMEFRAME',
    schema: z.enum(values).meta({ description: 'Candle timeframe.', examples: ['1h'] }),
    message: (t) => `timeframe "${t}" is not one of ${values.join(', ')}`,
  });
}

export const TIMEFRAME = timeframeParam(CANDLE_TIMEFRAMES);
export const OPTIONAL_TIMEFRAME = timeframeParam(CANDLE_TIMEFRAMES, false);
/** /v1/features also serves the hourly funding features under timeframe `funding`. */
export const FEATURE_TIMEFRAME = timeframeParam([...CANDLE_TIMEFRAMES, 'funding'] as const);

/** `end` has no example: "Try it out" would send it, and its default (now) is what users want. */
function instantParam(name: 'start' | 'end', required: boolean, description: string): Param<number> {
  return param(name, {
    required,
    code: 'INVALID_TIMESTAMP',
    schema: z
      .string()
      .refine((s) => parseTimestamp(s) !== null)
      .meta(required ? { description, examples: ['2024-01-01T00:00:00Z', '1704067200000'] } : { description })
      .transform((s) => parseTimestamp(s)!),
    message: (t) => `${name} "${t}" is not ISO 8601 or Unix milliseconds`,
  });
}

export const START = instantParam('start', true, 'Inclusive start: ISO 8601 (UTC if no offset) or Unix milliseconds.');
export const END = instantParam('end', false, 'Inclusive end (default: now): ISO 8601 or Unix milliseconds.');

export function limitParam(def: number, max: number): Param<number> {
  return param('limit', {
    schema: z
      .preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN), z.number().int().min(1).max(max))
      .meta({ description: `Rows per page (default ${def.toLocaleString('en-US')}).`, default: def }),
    message: () => `limit must be an integer from 1 to ${max.toLocaleString('en-US')}`,
  });
}

export const OHLCV_LIMIT = limitParam(DEFAULT_OHLCV_LIMIT, MAX_ROWS);

export const NORMALIZED = param('normalized', {
  schema: z
    .enum(['true', 'false'])
    .meta({ description: 'Add rate_normalized (30-day z-score) and premium.', default: 'false' })
    .transform((v) => v === 'true'),
  message: (_t, name) => `${name} must be true or false`,
});

const FEATURE_NAMES = FEATURE_CATALOGUE.map((f) => f.name) as [string, ...string[]];

export const FEATURES = param('features', {
  required: true,
  code: 'UNKNOWN_FEATURES',
  list: true,
  schema: z.enum(FEATURE_NAMES).meta({ description: 'Feature names (GET /v1/features/available describes them).', examples: ['rsi_14'] }),
  message: (t) => `unknown features: ${t} (GET /v1/features/available lists them)`,
  missing: { code: 'MISSING_FEATURES', message: 'features must name at least one feature (GET /v1/features/available)' },
});

/** Candle fields, funding_rate, or any feature (venue and timeframe rules apply on top). */
export const MULTI_ASSET_FIELDS = ['open', 'high', 'low', 'close', 'volume', 'funding_rate', ...FEATURE_NAMES] as const;

export const FIELD = param('field', {
  required: true,
  schema: z.enum(MULTI_ASSET_FIELDS as unknown as [string, ...string[]]).meta({
    description: 'The one field served for every symbol: a candle field, funding_rate (exchange perp, timeframe 1h) or a feature.',
    examples: ['close'],
  }),
  message: (t) => `field "${t}" is not open, high, low, close, volume, funding_rate or a feature name (GET /v1/features/available)`,
});

export const FORMAT = param('format', {
  schema: z
    .enum(['json', 'csv'])
    .meta({ description: 'json (default) or csv: a header row, the same strings, the next page in X-Next-Start.', default: 'json' }),
  message: () => 'format must be json or csv',
});

// ---- cross-parameter rules ------------------------------------------------------------

export interface TimeRange {
  start: number;
  end: number;
}

/** start (required) and end (default now), both inclusive; start after end is refused. */
export function timeRange(raw: RawParams, nowMs: number): TimeRange {
  const start = need(START, raw);
  const end = read(END, raw) ?? nowMs;
  if (start > end) throw new AppError('INVALID_TIME_RANGE', 'start is after end');
  return { start, end };
}

export type { CandleTimeframe };
