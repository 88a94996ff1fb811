/**
 * Every GraphQL field backed by an endpoint, declared once: the endpoint whose parameters are its
 * arguments and whose bounds are its cost, the parameters its parent (a market) supplies instead,
 * and for candles the subfields whose selection makes the read fetch the trade flow. args.ts,
 * complexity.ts, the resolvers and serializers.ts read this table: a field that takes its
 * arguments through argsType is costed by the same endpoint that declares them.
 */
import { TRADE_FLOW_FIELDS } from '../domain/market';
import type { MarketEndpoints } from '../domain/params/market-endpoints';

export interface GraphQLField {
  readonly endpoint: keyof MarketEndpoints;
  /** Parameters taken from the parent object instead of the field's arguments. */
  readonly fromParent?: readonly string[];
  /** Subfields whose selection makes the read fetch the trade flow (candles). */
  readonly tradeFlow?: readonly string[];
}

type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;

const camelCase = <S extends string>(s: S) => s.replace(/_(.)/g, (_, c: string) => c.toUpperCase()) as CamelCase<S>;

/** The fields of a market's data: the market is their parent. */
const OF_MARKET = ['symbol', 'exchange'] as const;

/**
 * Keyed by the field's name alone: the cost rules walk the document without its types, so a
 * field of the same name on another type is costed as this one.
 */
export const GRAPHQL_FIELDS = {
  market: { endpoint: 'market' },
  markets: { endpoint: 'markets' },
  // The trade flow's GraphQL names are the domain's REST names in camelCase, as Candle's keys are.
  candles: { endpoint: 'ohlcv', fromParent: OF_MARKET, tradeFlow: TRADE_FLOW_FIELDS.map(camelCase) },
  derivatives: { endpoint: 'derivatives', fromParent: OF_MARKET },
  funding: { endpoint: 'funding', fromParent: OF_MARKET },
  features: { endpoint: 'features', fromParent: OF_MARKET },
  quality: { endpoint: 'quality', fromParent: OF_MARKET },
  multiAsset: { endpoint: 'multiAsset' },
  candleClosed: { endpoint: 'candleEvents' },
  derivativesClosed: { endpoint: 'derivativesEvents' },
  fundingSettled: { endpoint: 'fundingEvents' },
  qualityChanged: { endpoint: 'qualityEvents' },
} as const satisfies Record<string, GraphQLField>;

export type GraphQLFieldName = keyof typeof GRAPHQL_FIELDS;

/** The declaration of a field named in a document, if it has one (never an Object.prototype key). */
export function graphqlField(name: string): GraphQLField | undefined {
  return Object.hasOwn(GRAPHQL_FIELDS, name) ? GRAPHQL_FIELDS[name as GraphQLFieldName] : undefined;
}
