/**
 * The GraphQL schema, built from the resolver classes. Resolver instances are created once
 * with their services (no per-request container); schema.graphql at the repo root is this
 * schema printed (`npm run schema`; a test fails when it is stale).
 */
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import type { FeaturesService } from '../services/features.service';
import type { KeysService } from '../services/keys.service';
import type { TierPolicy } from '../services/tier-policy';
import { errorBoundary } from './errors';
import { AccountResolver } from './resolvers/account.resolver';
import { FeatureResolver } from './resolvers/feature.resolver';
import { MarketResolver } from './resolvers/market.resolver';
import type { MarketDataService } from '../services/market-data.service';

export interface SchemaDeps {
  keys: KeysService;
  tiers: TierPolicy;
  features: FeaturesService;
  market: MarketDataService;
}

export async function buildGraphQLSchema(deps: SchemaDeps): Promise<GraphQLSchema> {
  const instances = new Map<unknown, unknown>([
    [AccountResolver, new AccountResolver(deps.keys, deps.tiers)],
    [FeatureResolver, new FeatureResolver(deps.features)],
    [MarketResolver, new MarketResolver(deps.market)],
  ]);
  return buildSchema({
    resolvers: [AccountResolver, FeatureResolver, MarketResolver],
    container: { get: (cls: unknown) => instances.get(cls) },
    globalMiddlewares: [errorBoundary],
    validate: false,
  });
}

export function printSchemaSdl(schema: GraphQLSchema): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
