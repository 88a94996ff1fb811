/**
 * The GraphQL schema, built from the resolver classes. Resolver instances are created once
 * with their services (no per-request container); schema.graphql at the repo root is this
 * schema printed (`npm run schema`; a test fails when it is stale).
 */
import { GraphQLList, GraphQLNonNull, GraphQLSchema, getNullableType, isListType, isObjectType, lexicographicSortSchema, printSchema, type GraphQLOutputType } from 'graphql';
import { buildSchema, getMetadataStorage, type PubSub } from 'type-graphql';
import { BACKFILL_GAPS } from '../domain/market';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import type { KeysService } from '../services/access/keys.service';
import type { MultiAssetService } from '../services/reads/multi-asset.service';
import type { TierPolicy } from '../services/access/tier-policy';
import { registerArgs } from './args';
import { AccountResolver } from './resolvers/account.resolver';
import { CandlePageResolver } from './resolvers/candle-page.resolver';
import { FundingRowResolver } from './resolvers/funding-row.resolver';
import { FeatureResolver } from './resolvers/feature.resolver';
import { MarketResolver, type MarketResolverDeps } from './resolvers/market.resolver';
import { MultiAssetResolver } from './resolvers/multi-asset.resolver';
import { SubscriptionResolver } from './resolvers/subscription.resolver';

export interface SchemaDeps extends MarketResolverDeps {
  endpoints: MarketEndpoints;
  keys: KeysService;
  tiers: TierPolicy;
  multiAsset: MultiAssetService;
  /** A served exchange backfills its context (Exchanges.backfillsContext): its BACKFILL_GAPS are nullable. */
  contextBackfill: boolean;
}

/**
 * type-graphql wraps every plain field in a resolver that builds a ResolverData object and
 * runs its (empty) middleware chain. On a 10,000-row page that is 60,000 allocations and calls
 * for nothing: plain property fields without middlewares go back to graphql-js's default
 * resolver, which reads the property directly.
 */
function useDefaultResolvers(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  const schemaName = new Map<unknown, string>(storage.objectTypes.map((t) => [t.target, t.name]));
  const plain = new Set<string>();
  for (const t of storage.objectTypes) {
    for (const f of t.fields ?? []) {
      if (!f.middlewares?.length && !f.roles?.length) plain.add(`${t.name}.${f.schemaName}`);
    }
  }
  const resolvedByResolvers = new Set(storage.fieldResolvers.map((f) => `${schemaName.get(f.getObjectType?.())}.${f.schemaName}`));
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const key = `${type.name}.${field.name}`;
      if (plain.has(key) && !resolvedByResolvers.has(key)) field.resolve = undefined;
    }
  }
  return schema;
}

/** `type` without its non-null wrappers: `String!` as `String`, `[String!]!` as `[String]!`. */
function withNullableValues(type: GraphQLOutputType): GraphQLOutputType {
  const inner = getNullableType(type);
  return isListType(inner) ? new GraphQLNonNull(new GraphQLList(getNullableType(inner.ofType))) : inner;
}

/**
 * Where a served exchange backfills its context, the fields of what its venue keeps no history
 * of (BACKFILL_GAPS) are null in a backfilled period: on rows nullable, on columns lists of
 * nullable items. type-graphql's decorators are static, so the built schema is changed here; a
 * configuration without such an exchange keeps the non-null fields it always had.
 */
function allowBackfillGaps(schema: GraphQLSchema): GraphQLSchema {
  for (const typeName of ['DerivativesRow', 'DerivativesColumns']) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`${typeName} is not an object type of the schema`);
    const fields = type.getFields();
    for (const name of BACKFILL_GAPS) fields[name].type = withNullableValues(fields[name].type);
  }
  return schema;
}

/**
 * type-graphql wants a PubSub as soon as a schema has subscriptions, for its topic-based ones.
 * Ours open their streams through SubscriptionsService (`subscribe` functions), never topics.
 */
const NO_TOPICS: PubSub = {
  publish() {
    throw new Error('market events are published on the event bus (services/events), not through type-graphql');
  },
  subscribe() {
    throw new Error('subscriptions open through SubscriptionsService (graphql/subscriptions.ts), not type-graphql topics');
  },
};

export async function buildGraphQLSchema(deps: SchemaDeps): Promise<GraphQLSchema> {
  registerArgs(deps.endpoints);
  const instances = new Map<unknown, unknown>([
    [AccountResolver, new AccountResolver(deps.keys, deps.tiers)],
    [CandlePageResolver, new CandlePageResolver()],
    [FundingRowResolver, new FundingRowResolver()],
    [FeatureResolver, new FeatureResolver(deps.features)],
    [MarketResolver, new MarketResolver(deps)],
    [MultiAssetResolver, new MultiAssetResolver(deps.endpoints, deps.multiAsset)],
    [SubscriptionResolver, new SubscriptionResolver()],
  ]);
  const schema = await buildSchema({
    resolvers: [AccountResolver, CandlePageResolver, FeatureResolver, FundingRowResolver, MarketResolver, MultiAssetResolver, SubscriptionResolver],
    container: { get: (cls: unknown) => instances.get(cls) },
    validate: false,
    pubSub: NO_TOPICS,
  });
  useDefaultResolvers(schema);
  return deps.contextBackfill ? allowBackfillGaps(schema) : schema;
}

export function printSchemaSdl(schema: GraphQLSchema): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
