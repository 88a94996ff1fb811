/** The GraphQL cost and depth rules (graphql/complexity.ts), on parsed documents and an injected clock. */
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { AppError } from '../../src/domain/errors';
import { marketEndpoints } from '../../src/domain/params/market-endpoints';
import { Exchanges } from '../../src/domain/exchanges';
import { MARKETS_ESTIMATE, MAX_NESTING, measureOperation, nestingOf, refuseDeepNesting } from '../../src/graphql/complexity';

const endpoints = marketEndpoints(new Exchanges(['perp', 'spot']));

const NOW = Date.UTC(2024, 0, 11); // ten days after 2024-01-01

function measure(query: string, variables: Record<string, unknown> = {}, nowMs = NOW) {
  const doc = parse(query);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return measureOperation(endpoints, doc, op, variables, nowMs);
}

const M = (field: string) => `{ market(exchange: "perp", symbol: "BTC-USDT") { ${field} } }`;

describe('cost', () => {
  it('counts one per plain field', () => {
    expect(measure('{ me { tier quota { minuteLimit } } }')).toEqual({ depth: 3, cost: 4 });
  });

  it('when candles name a limit, then 1 + limit / 100 (rounded up): 101 at 10,000, 11 at the default limit', () => {
    expect(measure(M('candles(timeframe: "1h", start: "2024-01-01", limit: 10000) { count }')).cost).toBe(1 + (1 + 100) + 1);
    expect(measure(M('candles(timeframe: "1h", start: "2024-01-01", limit: 150) { count }')).cost).toBe(1 + (1 + 2) + 1);
    expect(measure(M('candles(timeframe: "1h", start: "2024-01-01") { count }')).cost).toBe(1 + (1 + 10) + 1);
    expect(measure('query($l: Int) ' + M('candles(timeframe: "1h", start: "2024-01-01", limit: $l) { count }'), { l: 500 }).cost).toBe(1 + (1 + 5) + 1);
  });

  it('when funding has no end, then its window runs to the clock given, not the wall clock', () => {
    // 10 days = 240 funding hours + 1 -> 241 rows -> 3
    expect(measure(M('funding(start: "2024-01-01") { count }')).cost).toBe(1 + (1 + 3) + 1);
    // the same document two years later: more than 10,000 rows -> the most, 100
    expect(measure(M('funding(start: "2024-01-01") { count }'), {}, Date.UTC(2026, 0, 1)).cost).toBe(1 + (1 + 100) + 1);
    expect(measure(M('funding(start: "2024-01-01", end: "2024-01-01T05:00:00Z") { count }')).cost).toBe(1 + (1 + 1) + 1);
    expect(measure(M('funding(start: "not a time") { count }')).cost).toBe(1 + (1 + 100) + 1);
    expect(measure(M('funding(start: "2024-01-01", end: null) { count }')).cost).toBe(1 + (1 + 3) + 1);
  });

  it('when features or multiAsset are asked, then a full page; multiAsset adds one per symbol', () => {
    expect(measure(M('features(timeframe: "1h", names: ["rsi_14"], start: "2024-01-01") { count }')).cost).toBe(1 + (1 + 100) + 1);
    expect(measure('{ multiAsset(exchange: "spot", symbols: ["A-B", "C-D", "E-F"], timeframe: "1h", field: "close", start: "2024-01-01") { count } }').cost).toBe(1 + 100 + 3 + 1);
    expect(measure('query($s: [String!]!) { multiAsset(exchange: "spot", symbols: $s, timeframe: "1h", field: "close", start: "x") { count } }', { s: ['A-B', 'C-D'] }).cost).toBe(1 + 100 + 2 + 1);
  });

  it('when fields sit under markets, then they count once per estimated market', () => {
    expect(measure('{ markets { symbol } }').cost).toBe(1 + MARKETS_ESTIMATE);
  });

  it('expands fragments once each, aliases separately, and does not count introspection', () => {
    expect(measure('{ a: me { tier } b: me { tier } }').cost).toBe(4);
    expect(measure('{ ...F ...F } fragment F on Query { me { tier } }').cost).toBe(4);
    expect(measure('{ __schema { types { name } } me { tier } }').cost).toBe(2);
  });
});

describe('depth', () => {
  it('counts nested fields, through inline fragments', () => {
    expect(measure('{ me { quota { ... on Quota { minuteLimit } } } }').depth).toBe(3);
  });
});

describe('nesting of the document text', () => {
  it('counts braces, brackets and parentheses, skipping strings and comments', () => {
    expect(nestingOf('{ a(b: [1, [2]]) { c } }')).toBe(4);
    expect(nestingOf('{ a(b: "{{{{{{") } # {{{{{{\n')).toBe(2);
    expect(nestingOf('{ a(b: """ {{{{ """) }')).toBe(2);
  });

  it('when a document nests beyond the limit, then QUERY_TOO_COMPLEX before parsing', () => {
    const deep = '{'.repeat(MAX_NESTING + 1) + '}'.repeat(MAX_NESTING + 1);
    expect(() => refuseDeepNesting([deep])).toThrow(AppError);
    expect(() => refuseDeepNesting(['{ me { tier } }', undefined, 42])).not.toThrow();
  });
});
