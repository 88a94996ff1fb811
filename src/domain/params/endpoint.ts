/**
 * An endpoint of the API (ohlcv, funding, features, ...) declared once: its parameters in the order
 * they are checked, the cross-parameter rules and where they fall in that order, and the
 * request the parsed values make. The parser, the OpenAPI parameters and the GraphQL
 * arguments are all derived from this one declaration.
 */
import type { ErrorCode } from '../errors';
import type { Param, RawParams } from './param';
import { parseParam } from './param';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ParamMap = Record<string, Param<any, boolean>>;

type ValueOf<P> = P extends Param<infer T, infer R> ? (R extends true ? T : T | undefined) : never;

/** The parsed values of an endpoint, keyed like its parameter map. */
export type ParamValues<P extends ParamMap> = { [K in keyof P]: ValueOf<P[K]> };

export interface EndpointRule<P extends ParamMap> {
  /** The rule runs right after this parameter is parsed (so its error comes in that place). */
  after: keyof P & string;
  /** The codes its refusals carry (for the document). */
  codes: readonly ErrorCode[];
  check(values: Partial<ParamValues<P>>, nowMs: number): void;
}

/** How much an endpoint can return, from its raw arguments, without validating them (the GraphQL cost rules). */
export interface EndpointBounds {
  /** Rows a page can hold at most. */
  rows: number;
  /** Symbols the arguments name themselves (multi-asset), 0 for an endpoint of one market. */
  symbols: number;
}

export interface Endpoint<P extends ParamMap = ParamMap, R = unknown> {
  readonly name: string;
  /** The parameters by key, in check order. */
  readonly params: P;
  /** Validate `raw` (keyed by the parameters' names) in order; 400s are AppErrors. */
  parse(raw: RawParams, nowMs: number): R;
  /** Every code a bad value or a broken rule can give (the parameters' and the rules'). */
  readonly codes: readonly ErrorCode[];
  /** The most a page of this endpoint can hold, for raw arguments (null: not a paged read). */
  bounds(raw: RawParams, nowMs: number): EndpointBounds | null;
}

export interface EndpointOptions<P extends ParamMap> {
  rules?: EndpointRule<P>[];
  bounds?: (raw: RawParams, nowMs: number) => EndpointBounds;
}

export function defineEndpoint<P extends ParamMap, R>(
  name: string,
  params: P,
  request: (values: ParamValues<P>, nowMs: number) => R,
  { rules = [], bounds }: EndpointOptions<P> = {},
): Endpoint<P, R> {
  const steps = Object.entries(params).map(([key, p]) => ({ key, p, rules: rules.filter((r) => r.after === key) }));
  return {
    name,
    params,
    codes: [...new Set([...Object.values(params).flatMap((p) => p.codes), ...rules.flatMap((r) => r.codes)])],
    bounds: (raw, nowMs) => (bounds ? bounds(raw, nowMs) : null),
    parse(raw, nowMs) {
      const values: Record<string, unknown> = {};
      for (const s of steps) {
        values[s.key] = parseParam(s.p, raw);
        for (const r of s.rules) r.check(values as Partial<ParamValues<P>>, nowMs);
      }
      return request(values as ParamValues<P>, nowMs);
    },
  };
}

/** The parameters of an endpoint as a list, in check order. */
export function paramList(endpoint: Endpoint): Param[] {
  return Object.values(endpoint.params);
}
