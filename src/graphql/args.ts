/**
 * GraphQL arguments derived from a read's declaration (domain/params): one argument per
 * parameter, in order, typed by its kind (String, Int, Boolean, [String!]), non-null when
 * required or defaulted, with the parameter's GraphQL name, description and default. The
 * resolver hands the arguments back to the read as they came, so both transports are checked
 * by the same parser.
 *
 * The classes are made once per read, when the schema is first built (their shape does not
 * depend on the configured venue names): resolvers name them as `@Args(() => argsType('ohlcv'))`.
 */
import { ArgsType, Field, Int } from 'type-graphql';
import type { Param, RawParams } from '../domain/params/param';
import { paramList, type Read } from '../domain/params/read';
import type { MarketReads } from '../domain/params/reads';

type ArgsClass = new () => Record<string, unknown>;

const GRAPHQL_TYPES = { text: String, integer: Int, boolean: Boolean, list: [String] } as const;

/** Which parameters each field takes from its parent instead of its arguments. */
const FROM_PARENT: Partial<Record<keyof MarketReads, readonly string[]>> = {
  ohlcv: ['symbol', 'exchange'],
  funding: ['symbol', 'exchange'],
  features: ['symbol', 'exchange'],
  quality: ['symbol', 'exchange'],
};

const classes = new Map<string, ArgsClass>();

/** The argument name of a parameter in the schema. */
const argName = (p: Param) => p.graphql.name ?? p.name;

function makeArgs(read: Read, omit: readonly string[]): ArgsClass {
  const Args = class {} as ArgsClass;
  Object.defineProperty(Args, 'name', { value: `${read.name[0].toUpperCase()}${read.name.slice(1)}Args` });
  for (const p of paramList(read)) {
    if (omit.includes(p.name)) continue;
    const type = GRAPHQL_TYPES[p.kind];
    Field(() => type, {
      nullable: !p.required && p.graphql.defaultValue === undefined,
      description: p.graphql.description,
      defaultValue: p.graphql.defaultValue,
    })(Args.prototype, argName(p));
  }
  ArgsType()(Args);
  return Args;
}

/** Make the argument classes of every read (once per process), before the schema is built. */
export function registerArgs(reads: MarketReads): void {
  for (const [name, read] of Object.entries(reads) as Array<[keyof MarketReads, Read]>) {
    if (!classes.has(name)) classes.set(name, makeArgs(read, FROM_PARENT[name] ?? []));
  }
}

/** The @ArgsType class of a read (registerArgs has run). */
export function argsType(name: keyof MarketReads): ArgsClass {
  const c = classes.get(name);
  if (!c) throw new Error(`GraphQL arguments of ${name} are not registered (registerArgs first)`);
  return c;
}

/** The arguments as the read's raw parameters (GraphQL names back to parameter names), over `base`. */
export function rawOf(read: Read, args: Record<string, unknown>, base: object = {}): RawParams {
  const raw: RawParams = { ...base };
  for (const p of paramList(read)) {
    const v = args[argName(p)];
    if (v !== undefined) raw[p.name] = v;
  }
  return raw;
}
