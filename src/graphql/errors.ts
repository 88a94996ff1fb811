/**
 * The GraphQL edge of the error family: the same code and extras as the REST envelope, in
 * `extensions` (code, request_id, retry_after_secs, upgrade_url). Unknown errors are logged
 * with the request id and masked as DATABASE_ERROR. This lives in Apollo's formatError and a
 * plugin rather than in a resolver middleware: a global type-graphql middleware would wrap
 * every scalar of a 10,000-row page in a promise.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, isAppError } from '../domain/errors';
import { HTTP_STATUS } from '../transport/http-status';
import type { GqlContext } from './context';

const MASKED = 'internal error; retry with exponential backoff';

export function appErrorExtensions(err: AppError, requestId?: string): Record<string, unknown> {
  const ext: Record<string, unknown> = { code: err.code };
  if (requestId !== undefined) ext.request_id = requestId;
  if (err.extras.retry_after_secs !== undefined) ext.retry_after_secs = err.extras.retry_after_secs;
  if (err.extras.upgrade_url !== undefined) ext.upgrade_url = err.extras.upgrade_url;
  return ext;
}

/**
 * A refusal before execution (context creation): also carries the HTTP status. Its headers
 * (rate limits, Retry-After) are already on the response, which Apollo adds to.
 */
export function toHttpGraphQLError(err: AppError, requestId: string): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: { ...appErrorExtensions(err, requestId), http: { status: HTTP_STATUS[err.code] } },
  });
}

/**
 * A GraphQLError that graphql-js or Apollo made about the request itself, with no code (a
 * persisted-query hash that does not match its query, an operation type the schema lacks):
 * the client's doing, not an internal error. An error thrown in a resolver or a plugin always
 * carries its cause (`originalError`).
 */
function isRequestError(err: unknown): err is GraphQLError {
  return err instanceof GraphQLError && err.originalError === undefined && err.path === undefined;
}

/** True for errors the client is meant to see as they are. */
function isExpected(original: unknown): boolean {
  if (isAppError(original) || isRequestError(original)) return true;
  const code = original instanceof GraphQLError ? original.extensions?.code : undefined;
  return typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR';
}

/** Apollo formatError: AppErrors keep their code and extras; never a stack trace; the rest is masked. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (isAppError(original)) {
    return { message: original.message, locations: formatted.locations, path: formatted.path, extensions: appErrorExtensions(original) };
  }
  const { stacktrace: _stack, ...extensions } = formatted.extensions ?? {};
  if (extensions.code === 'INTERNAL_SERVER_ERROR' || extensions.code === undefined) {
    if (isRequestError(original)) return { ...formatted, extensions: { ...extensions, code: 'BAD_REQUEST' } };
    return { message: MASKED, path: formatted.path, extensions: { code: 'DATABASE_ERROR' } };
  }
  // Bad argument values are the REST INVALID_PARAMETER; document errors keep Apollo's codes
  // (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED), which have no REST counterpart.
  if (extensions.code === 'BAD_USER_INPUT') return { ...formatted, extensions: { ...extensions, code: 'INVALID_PARAMETER' } };
  return { ...formatted, extensions };
}

/** Log what went wrong with the request id, and stamp that id on every error sent. */
export function requestIdPlugin(): ApolloServerPlugin<GqlContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ contextValue, errors }) {
          for (const e of errors) {
            const original = unwrapResolverError(e);
            if (!isExpected(original)) {
              contextValue.log?.error({ err: original }, 'unexpected error in resolver');
              contextValue.noteError?.(new AppError('DATABASE_ERROR', MASKED));
            } else if (isAppError(original)) {
              if (original.cause) contextValue.log?.debug({ err: original.cause, code: original.code }, 'dependency failure');
              contextValue.noteError?.(original);
            }
          }
        },
        async willSendResponse({ contextValue, response }) {
          if (response.body.kind !== 'single') return;
          const errors = response.body.singleResult.errors;
          if (!errors || !contextValue.requestId) return;
          response.body.singleResult.errors = errors.map((e) =>
            e.extensions?.request_id ? e : { ...e, extensions: { ...e.extensions, request_id: contextValue.requestId } },
          );
        },
      };
    },
  };
}
