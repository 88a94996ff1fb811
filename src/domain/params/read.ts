/**
 * A read of the API (ohlcv, funding, features, ...) declared once: its parameters in the order
 * they are checked, the cross-parameter rules and where they fall in that order, and the
 * request the parsed values make. The parser, the OpenAPI parameters and the GraphQL
 * arguments are all derived from this one declaration.
 */
import type { Param, RawParams } from './param';
import { parseParam } from './param';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ParamMap = Record<string, Param<any, boolean>>;

type ValueOf<P> = P extends Param<infer T, infer R> ? (R extends true ? T : T | undefined) : never;

/** The parsed values of a read, keyed like its parameter map. */
export type ParamValues<P extends ParamMap> = { [K in keyof P]: ValueOf<P[K]> };

export interface ReadRule<P extends ParamMap> {
  /** The rule runs right after this parameter is parsed (so its error comes in that place). */
  after: keyof P & string;
  check(values: Partial<ParamValues<P>>, nowMs: number): void;
}

export interface Read<P extends ParamMap = ParamMap, R = unknown> {
  readonly name: string;
  /** The parameters by key, in check order. */
  readonly params: P;
  /** Validate `raw` (keyed by the parameters' names) in order; 400s are AppErrors. */
  parse(raw: RawParams, nowMs: number): R;
}

export function defineRead<P extends ParamMap, R>(
  name: string,
  params: P,
  request: (values: ParamValues<P>, nowMs: number) => R,
  rules: ReadRule<P>[] = [],
): Read<P, R> {
  const steps = Object.entries(params).map(([key, p]) => ({ key, p, rules: rules.filter((r) => r.after === key) }));
  return {
    name,
    params,
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

/** The parameters of a read as a list, in check order. */
export function paramList(read: Read): Param[] {
  return Object.values(read.params);
}
