/**
 * The GraphQL schema, built from the resolver classes. Resolver instances are created once
 * with their services (no per-request container); schema.graphql at the repo root is this
 * schema printed (`npm run schema`; a test fails when it is stale).
 */
import { GraphQLSchema, isObjectType, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import type { FeaturesService } from '../services/features.service';
import type { KeysService } from '../services/keys.service';
import type { TierPolicy } from '../services/tier-policy';
import { AccountResolver } from './resolvers/account.resolver';
import { FeatureResolver } from './resolvers/feature.resolver';
import { MarketResolver } from './resolvers/market.resolver';
import type { MarketDataService } from '../services/market-data.service';
import type { QualityService } from '../services/quality.service';

export interface SchemaDeps {
  keys: KeysService;
  tiers: TierPolicy;
  features: FeaturesService;
  market: MarketDataService;
  quality: QualityService;
}

/**
 * type-graphql wraps every plain field in a resolver that builds a ResolverData object and
 * runs its (empty) middleware chain. On a 10,000-row page that is 60,000 allocations and calls
 * for nothing: plain property fields without middlewares go back to graphql-js's default
 * resolver, which reads the property directly.
 */
function useDefaultResolvers(schema: GraphQLSchema): GraphQLSchema {
  const plain = new Set<string>();
  for (const t of getMetadataStorage().objectTypes) {
    for (const f of t.fields ?? []) {
      if (!f.middlewares?.length && !f.roles?.length) plain.add(`${t.name}.${f.name}`);
    }
  }
  const resolvedByResolvers = new Set(getMetadataStorage().fieldResolvers.map((f) => `${f.getObjectType?.()?.name}.${f.schemaName}`));
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const key = `${type.name}.${field.name}`;
      if (plain.has(key) && !resolvedByResolvers.has(key)) field.resolve = undefined;
    }
  }
  return schema;
}

export async function buildGraphQLSchema(deps: SchemaDeps): Promise<GraphQLSchema> {
  const instances = new Map<unknown, unknown>([
    [AccountResolver, new AccountResolver(deps.keys, deps.tiers)],
    [FeatureResolver, new FeatureResolver(deps.features)],
    [MarketResolver, new MarketResolver(deps.market, deps.features, deps.quality)],
  ]);
  const schema = await buildSchema({
    resolvers: [AccountResolver, FeatureResolver, MarketResolver],
    container: { get: (cls: unknown) => instances.get(cls) },
    validate: false,
  });
  return useDefaultResolvers(schema);
}

export function printSchemaSdl(schema: GraphQLSchema): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
