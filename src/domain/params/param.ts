/**
 * One request parameter, transport-free: its name, whether it is required, the zod schema that
 * checks one value, the errors a bad or missing value gives, and how each transport presents
 * it (the OpenAPI document reads `kind`, `description`, `examples` and `default`; GraphQL reads
 * `kind` and `graphql`). REST hands over query-string text, GraphQL its typed arguments: the
 * same parameter parses both, with the same codes.
 */
import { z } from 'zod';
import { AppError, type ErrorCode } from '../errors';

/** Raw parameter values as they arrive (strings, or typed values from GraphQL). */
export type RawParams = Record<string, unknown>;

/** How a value travels: GraphQL maps these to String, Int, Boolean and [String!]; OpenAPI to its types. */
export type ParamKind = 'text' | 'integer' | 'boolean' | 'list';

/** A parameter whose parsed value is `T` (for a list, the array of checked items). */
export interface Param<T = unknown, Required extends boolean = boolean> {
  readonly name: string;
  readonly required: Required;
  readonly kind: ParamKind;
  /** Checks one value (one item of a list parameter); its input is the trimmed text. */
  readonly schema: z.ZodType;
  /** Phantom: the type `parseParam` gives. */
  readonly _value?: T;
  readonly description: string;
  readonly examples: readonly string[];
  /** The value used when the parameter is absent (documentation; the read applies it). */
  readonly default?: string | number | boolean;
  /** The codes this parameter alone can cause (for the document). */
  readonly codes: readonly ErrorCode[];
  /**
   * GraphQL argument details where they differ from the REST parameter; `omit`: REST only
   * (GraphQL selects what a query returns).
   */
  readonly graphql: { name?: string; description?: string; defaultValue?: unknown; omit?: boolean };
  /** The error for a value (or, for a list, the comma-joined items) the schema refuses. */
  invalid(text: string): AppError;
  /** The error when a required parameter is absent or empty. */
  missing(): AppError;
}

export interface ParamOptions<T, Required extends boolean> {
  schema: z.ZodType<T>;
  kind?: Exclude<ParamKind, 'list'>;
  required?: Required;
  description: string;
  examples?: readonly string[];
  default?: string | number | boolean;
  /** The message of INVALID_PARAMETER (or `code`) for a refused value. */
  message: (text: string, name: string) => string;
  /** Default INVALID_PARAMETER. */
  code?: ErrorCode;
  /** Default MISSING_PARAMETER "<name> is required". */
  missing?: { code: ErrorCode; message: string };
  graphql?: Param['graphql'];
}

export function param<T, Required extends boolean = false>(name: string, o: ParamOptions<T, Required>): Param<T, Required> {
  return build(name, o.kind ?? 'text', o);
}

/** A list parameter: each item checked by `schema`; the value is the array of checked items. */
export function listParam<T, Required extends boolean = false>(name: string, o: Omit<ParamOptions<T, Required>, 'kind'>): Param<T[], Required> {
  return build(name, 'list', o);
}

function build<V, Required extends boolean>(name: string, kind: ParamKind, o: ParamOptions<unknown, Required>): Param<V, Required> {
  const code = o.code ?? 'INVALID_PARAMETER';
  const required = (o.required ?? false) as Required;
  const missing = o.missing ?? { code: 'MISSING_PARAMETER' as const, message: `${name} is required` };
  return {
    name,
    required,
    kind,
    schema: o.schema,
    description: o.description,
    examples: o.examples ?? [],
    default: o.default,
    codes: [...new Set([...(required ? [missing.code] : []), code])],
    graphql: o.graphql ?? {},
    invalid: (text) => new AppError(code, o.message(text, name), { parameter: name }),
    missing: () => new AppError(missing.code, missing.message, { parameter: name }),
  };
}

/** One present value checked by the parameter's schema (also for values from elsewhere: the CLI). */
export function parseValue<T>(p: Param<T>, value: string): T {
  const r = p.schema.safeParse(value.trim());
  if (!r.success) throw p.invalid(value);
  return r.data as T;
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

/**
 * A list: comma-separated text (or an array from GraphQL, or a repeated query parameter);
 * items trimmed, empty ones dropped, de-duplicated, order kept. Every item is checked; the
 * refused ones are named together in one error.
 */
function parseList(p: Param, raw: RawParams): unknown[] | undefined {
  const v = raw[p.name];
  const items = (Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unique = [...new Set(items)];
  const checked = unique.map((s) => [s, p.schema.safeParse(s)] as const);
  const bad = checked.filter(([, r]) => !r.success).map(([s]) => s);
  if (bad.length) throw p.invalid(bad.join(', '));
  if (unique.length === 0) {
    if (p.required) throw p.missing();
    return undefined;
  }
  return [...new Set(checked.map(([, r]) => r.data))];
}

/** The parameter's value from `raw`: undefined when absent (MISSING_* when it is required). */
export function parseParam<T>(p: Param<T>, raw: RawParams): T | undefined {
  if (p.kind === 'list') return parseList(p, raw) as T | undefined;
  const v = text(raw, p.name);
  if (v === undefined) {
    if (p.required) throw p.missing();
    return undefined;
  }
  return parseValue(p, v);
}
