/**
 * Every GraphQL field that reads rows has its entry in graphql/fields.ts, so its cost comes from
 * its endpoint's bounds: without one it would cost 1 however many rows it returns, and a
 * document could ask for many of it under MAX_COST. The fields are found in the built schema, so
 * a new paged field without an entry fails here.
 */
import { getNamedType, getNullableType, isListType, isObjectType, Kind, parse, type GraphQLField, type GraphQLObjectType, type OperationDefinitionNode } from 'graphql';
import { Exchanges } from '../../src/domain/exchanges';
import { marketEndpoints } from '../../src/domain/params/market-endpoints';
import { MAX_ROWS } from '../../src/domain/params/market-params';
import { measureOperation } from '../../src/graphql/complexity';
import { graphqlField } from '../../src/graphql/fields';
import { buildGraphQLSchema, type SchemaDeps } from '../../src/graphql/schema';

const endpoints = marketEndpoints(new Exchanges(['perp', 'spot']));
const NOW = Date.UTC(2024, 0, 11);

/** A page is an object with a list `data` (every paged read returns one); a window is `start` or `limit`. */
function readsRows(field: GraphQLField<unknown, unknown>): boolean {
  const type = getNamedType(field.type);
  const data = isObjectType(type) ? type.getFields().data : undefined;
  return (data !== undefined && isListType(getNullableType(data.type))) || field.args.some((a) => a.name === 'start' || a.name === 'limit');
}

/** The most a caller can ask of each window argument. */
const LARGE: Record<string, string> = { limit: String(MAX_ROWS), start: '"2000-01-01"' };

function cost(query: string): number {
  const doc = parse(query);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return measureOperation(endpoints, doc, op, {}, NOW).cost;
}

describe('the fields that read rows', () => {
  let found: Array<{ field: string; endpoint: string | undefined; cost: number }>;

  beforeAll(async () => {
    const schema = await buildGraphQLSchema({ endpoints } as SchemaDeps);
    // The selection reaching each object type from a root, shortest first: `{ market { ... } }`.
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter((t): t is GraphQLObjectType => !!t);
    const reach = new Map<GraphQLObjectType, (inner: string) => string>(roots.map((t) => [t, (inner: string) => `{ ${inner} }`]));
    for (const [type, wrap] of reach) {
      for (const f of Object.values(type.getFields())) {
        const t = getNamedType(f.type);
        if (isObjectType(t) && !reach.has(t)) reach.set(t, (inner) => wrap(`${f.name} { ${inner} }`));
      }
    }
    found = [];
    for (const [type, wrap] of reach) {
      for (const f of Object.values(type.getFields()).filter(readsRows)) {
        const args = f.args.filter((a) => LARGE[a.name]).map((a) => `${a.name}: ${LARGE[a.name]}`);
        const selected = `${f.name}${args.length ? `(${args.join(', ')})` : ''} { __typename }`;
        found.push({ field: `${type.name}.${f.name}`, endpoint: graphqlField(f.name)?.endpoint, cost: cost(wrap(selected)) - cost(wrap('__typename')) });
      }
    }
  });

  it('include every paged read of the schema', () => {
    expect(found.map((f) => f.field)).toEqual(expect.arrayContaining(['Market.candles', 'Market.derivatives', 'Market.funding', 'Market.features', 'Query.multiAsset']));
  });

  it('when one asks for its most rows, then it costs more than a plain field: its endpoint bounds it', () => {
    expect(found.filter((f) => f.endpoint === undefined || f.cost <= 1)).toEqual([]);
  });
});
