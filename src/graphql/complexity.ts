/**
 * Depth and cost limits: a document that would do unbounded work is refused before execution with
 * QUERY_TOO_COMPLEX (HTTP 400). Cost: one per field, plus for a data field the rows its endpoint
 * (graphql/fields.ts) can return per 100 and the symbols its arguments name (its `bounds` in
 * domain/params/market-endpoints.ts: candles and derivatives their limit, funding the window's hours,
 * features and multiAsset a full page); a field under `markets` counts once per market
 * (estimated). Introspection (__schema, __type) is bounded by the schema and not counted.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { AppError, isAppError } from '../domain/errors';
import { MAX_ROWS } from '../domain/params/market-params';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import { rawOf } from './args';
import type { GqlContext } from './context';
import { graphqlField } from './fields';

export const MAX_DEPTH = 10;
/** Deepest nesting of braces, brackets and parentheses a document's text may have. */
export const MAX_NESTING = 64;
export const MAX_COST = 2_000;
/** How many markets `markets` is assumed to return when costing its fields. */
export const MARKETS_ESTIMATE = 50;

/**
 * Deepest nesting of `{`, `[` and `(` in a document's text, strings and comments skipped.
 * graphql-js parses, validates and executes recursively: a document nested a few thousand
 * levels deep (inline fragments, list literals) overflows the stack, in whichever phase the JIT
 * left with the largest frames, and an overflow after parsing is an internal error. So a
 * document nested beyond MAX_NESTING is refused before it is parsed.
 */
export function nestingOf(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '#') {
      while (i + 1 < text.length && text[i + 1] !== '\n' && text[i + 1] !== '\r') i++;
    } else if (c === '"' && text.startsWith('"""', i)) {
      i += 3;
      while (i < text.length && !text.startsWith('"""', i)) i += text.startsWith('\\"""', i) ? 4 : 1;
      i += 2;
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
    } else if (c === '{' || c === '[' || c === '(') {
      max = Math.max(max, ++depth);
    } else if (c === '}' || c === ']' || c === ')') {
      depth = Math.max(0, depth - 1);
    }
  }
  return max;
}

/** QUERY_TOO_COMPLEX when a document of the request (POST body, GET query) nests beyond MAX_NESTING. */
export function refuseDeepNesting(documents: readonly unknown[]): void {
  for (const d of documents) {
    const n = typeof d === 'string' ? nestingOf(d) : 0;
    if (n > MAX_NESTING) throw new AppError('QUERY_TOO_COMPLEX', `query too complex: nesting ${n} exceeds ${MAX_NESTING}; split it into smaller requests`);
  }
}

interface Walk {
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** [depth, cost] of each fragment already measured: a fragment spread many times (or a
   * chain of fragments each spreading the next twice) is measured once, not 2^n times. */
  measured: Map<string, [number, number]>;
  /** Now, for a window without an end. */
  nowMs: number;
  endpoints: MarketEndpoints;
}

/** An argument's value as the resolver would get it (variables substituted), for the bounds. */
function valueOf(node: ValueNode, variables: Record<string, unknown>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.STRING:
    case Kind.ENUM:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.LIST:
      return node.values.map((v) => valueOf(v, variables));
    default:
      return null;
  }
}

/** A field missing from fields.ts costs 1, however many rows it reads (test/unit/graphql-fields.test.ts catches a paged one). */
function fieldCost(field: FieldNode, w: Walk): number {
  const declared = graphqlField(field.name.value);
  if (!declared) return 1;
  const endpoint = w.endpoints[declared.endpoint];
  const args = Object.fromEntries((field.arguments ?? []).map((a) => [a.name.value, valueOf(a.value, w.variables)]));
  const bounds = endpoint.bounds(rawOf(endpoint, args), w.nowMs);
  if (!bounds) return 1;
  return 1 + Math.ceil(Math.min(Math.max(bounds.rows, 1), MAX_ROWS) / 100) + bounds.symbols;
}

/** [depth, cost] of a selection set; fragments are expanded (cycles are invalid GraphQL). */
function measure(set: SelectionSetNode | undefined, w: Walk, seen: Set<string>): [number, number] {
  if (!set) return [0, 0];
  let depth = 0;
  let cost = 0;
  for (const sel of set.selections) {
    let d = 0;
    let c = 0;
    if (sel.kind === Kind.FIELD) {
      if (sel.name.value.startsWith('__')) continue;
      const [cd, cc] = measure(sel.selectionSet, w, seen);
      d = 1 + cd;
      c = fieldCost(sel, w) + cc * (sel.name.value === 'markets' ? MARKETS_ESTIMATE : 1);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      [d, c] = measure(sel.selectionSet, w, seen);
    } else {
      const frag = w.fragments.get(sel.name.value);
      if (!frag || seen.has(frag.name.value)) continue;
      let m = w.measured.get(frag.name.value);
      if (!m) w.measured.set(frag.name.value, (m = measure(frag.selectionSet, w, new Set([...seen, frag.name.value]))));
      [d, c] = m;
    }
    depth = Math.max(depth, d);
    cost += c;
  }
  return [depth, cost];
}

/** Depth and cost of one operation of `document`, its variables given, at `nowMs`. */
export function measureOperation(
  endpoints: MarketEndpoints,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  nowMs: number,
): { depth: number; cost: number } {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const [depth, cost] = measure(operation.selectionSet, { fragments, variables, measured: new Map(), nowMs, endpoints }, new Set());
  return { depth, cost };
}

/** QUERY_TOO_COMPLEX when the operation is deeper or costlier than the limits. */
export function refuseComplexOperation(endpoints: MarketEndpoints, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>, nowMs: number): void {
  const { depth, cost } = measureOperation(endpoints, document, operation, variables, nowMs);
  if (depth > MAX_DEPTH || cost > MAX_COST) {
    const why = depth > MAX_DEPTH ? `depth ${depth} exceeds ${MAX_DEPTH}` : `cost ${cost} exceeds ${MAX_COST}`;
    throw new AppError('QUERY_TOO_COMPLEX', `query too complex: ${why}; split it into smaller requests`);
  }
}

/**
 * Measure every operation before it runs; `clock` is the service's (tests inject one). A
 * subscription sent over plain HTTP is refused here too: it needs the WebSocket.
 */
export function complexityPlugin(endpoints: MarketEndpoints, clock: () => number): ApolloServerPlugin<GqlContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, request, contextValue }) {
          if (!operation) return;
          if (operation.operation === 'subscription') {
            throw new GraphQLError('subscriptions run over a WebSocket (graphql-ws, subprotocol graphql-transport-ws) at /graphql, not over HTTP', {
              extensions: { code: 'BAD_REQUEST', request_id: contextValue.requestId, http: { status: 400 } },
            });
          }
          try {
            refuseComplexOperation(endpoints, document, operation, request.variables ?? {}, clock());
          } catch (err) {
            if (!isAppError(err)) throw err;
            throw new GraphQLError(err.message, { extensions: { code: err.code, request_id: contextValue.requestId, http: { status: 400 } } });
          }
        },
      };
    },
  };
}
