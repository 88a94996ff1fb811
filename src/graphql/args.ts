/**
 * GraphQL arguments derived from an endpoint's declaration (domain/params): one per parameter, in
 * order, typed by its kind, non-null when required or defaulted, with its GraphQL name, description
 * and default. The resolver hands them back to the endpoint as they came, so both transports are
 * checked by the same parser. The classes are made once per field of fields.ts (their shape does
 * not depend on the venue names): resolvers name them as `@Args(() => argsType('candles'))`.
 */
import { ArgsType, Field, Int } from 'type-graphql';
import type { Param, RawParams } from '../domain/params/param';
import { paramList, type Endpoint } from '../domain/params/endpoint';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import { GRAPHQL_FIELDS, type GraphQLField, type GraphQLFieldName } from './fields';

type ArgsClass = new () => Record<string, unknown>;

const GRAPHQL_TYPES = { text: String, integer: Int, boolean: Boolean, list: [String] } as const;

const classes = new Map<GraphQLFieldName, ArgsClass>();

/** The argument name of a parameter in the schema. */
const argName = (p: Param) => p.graphql.name ?? p.name;

function makeArgs(field: GraphQLFieldName, endpoint: Endpoint, omit: readonly string[]): ArgsClass {
  const Args = class {} as ArgsClass;
  Object.defineProperty(Args, 'name', { value: `${field[0].toUpperCase()}${field.slice(1)}Args` });
  for (const p of paramList(endpoint)) {
    if (omit.includes(p.name) || p.graphql.omit) continue;
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

/** Make the argument classes of every field (once per process), before the schema is built. */
export function registerArgs(endpoints: MarketEndpoints): void {
  for (const [field, f] of Object.entries(GRAPHQL_FIELDS) as Array<[GraphQLFieldName, GraphQLField]>) {
    if (!classes.has(field)) classes.set(field, makeArgs(field, endpoints[f.endpoint], f.fromParent ?? []));
  }
}

/** The @ArgsType class of a field (registerArgs has run). */
export function argsType(field: GraphQLFieldName): ArgsClass {
  const c = classes.get(field);
  if (!c) throw new Error(`GraphQL arguments of ${field} are not registered (registerArgs first)`);
  return c;
}

/** The arguments as the endpoint's raw parameters (GraphQL names back to parameter names), over `base`. */
export function rawOf(endpoint: Endpoint, args: Record<string, unknown>, base: object = {}): RawParams {
  const raw: RawParams = { ...base };
  for (const p of paramList(endpoint)) {
    const v = args[argName(p)];
    if (v !== undefined) raw[p.name] = v;
  }
  return raw;
}
