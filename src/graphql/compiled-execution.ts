/**
 * Compiled execution: graphql-jit compiles each operation document once into JavaScript for its
 * exact shape. graphql-js interprets every field of every row anew (a path, an argument object and
 * a promise check each), and on a full page that garbage costs more than the read (bench/README.md).
 * Apollo still parses, validates, checks cost and builds the context; only execution is handed
 * over, through its executor hook (`gateway`). What graphql-jit cannot compile runs on graphql-js;
 * compiled documents are kept per query hash and operation, least recently used out first.
 */
import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { GraphQLError, execute, getVariableValues, printSchema, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/**
 * Leaf values are written as the resolvers return them, without a call of the scalar's
 * `serialize` per value (a call per cell: on a full page, most of the execution).
 * Safe here because the schema has only the built-in scalars and every resolver returns the
 * domain types TypeScript checks against them (strings for String, numbers for Int and Float);
 * the corpus test (test/api/graphql-compiled.test.ts) compares the answers with graphql-js's.
 */
const COMPILER_OPTIONS = { disableLeafSerialization: true };

/** Compiled documents kept (a dashboard sends a handful; each compiled one is a few KB). */
export const COMPILED_CACHE_SIZE = 500;

type Compiled = CompiledQuery | null;

/** The executor of compiled documents, and graphql-js for those graphql-jit refuses. */
export function compiledExecutor(schema: GraphQLSchema, cacheSize = COMPILED_CACHE_SIZE): GatewayExecutor {
  const cache = new Map<string, Compiled>();
  const compiledFor = (key: string, compile: () => Compiled): Compiled => {
    let entry = cache.get(key);
    if (entry !== undefined) {
      // Most recently used last: the Map's order is the eviction order.
      cache.delete(key);
    } else {
      entry = compile();
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    }
    cache.set(key, entry);
    return entry;
  };
  return async (rc) => {
    // As the client sent it: graphql-js must see the same name Apollo looked for.
    const operationName = rc.request.operationName ?? undefined;
    // No operation of that name (or an ambiguous document): graphql-js says so, as before.
    const compiled = rc.operation
      ? compiledFor(`${rc.queryHash}\u0000${operationName ?? ''}`, () => {
          const c = compileQuery(schema, rc.document, operationName, COMPILER_OPTIONS);
          return isCompiledQuery(c) ? c : null;
        })
      : null;
    if (!compiled || !rc.operation) return execute({ schema, document: rc.document, contextValue: rc.context, variableValues: rc.request.variables, operationName });
    // Variables are checked by graphql-js first: its errors (and their wording) are what Apollo
    // answers as 400 BAD_USER_INPUT, and what clients have been getting.
    const coerced = getVariableValues(schema, rc.operation.variableDefinitions ?? [], rc.request.variables ?? {});
    if (coerced.errors) return { errors: coerced.errors };
    const result: ExecutionResult = await compiled.query(undefined, rc.context, rc.request.variables);
    return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
  };
}

/**
 * graphql-jit's errors are its own GraphQLError look-alikes, without `extensions` (Apollo's
 * error formatting reads them) and with read-only fields: the same error as graphql-js makes
 * it, so formatError and the plugins see what they would without compilation.
 */
function asGraphQLError(e: GraphQLError): GraphQLError {
  if (e.extensions) return e;
  const out = new GraphQLError(e.message, { path: e.path, originalError: e.originalError ?? undefined });
  (out as { locations?: GraphQLError['locations'] }).locations = e.locations;
  return out;
}

/**
 * Apollo Server's gateway interface around one fixed schema: it loads the schema once and
 * hands execution to `compiledExecutor`.
 */
export function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  return {
    async load() {
      return { executor: compiledExecutor(schema) };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    async stop() {},
  };
}
