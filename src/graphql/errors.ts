/**
 * The GraphQL edge of the error family: the same code and extras as the REST envelope, in
 * `extensions` (code, request_id, retry_after_secs, upgrade_url). Unknown errors are logged
 * with the request id and masked as DATABASE_ERROR.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { MiddlewareFn } from 'type-graphql';
import { AppError, isAppError } from '../domain/errors';
import { HTTP_STATUS } from '../transport/http-status';
import type { GqlContext } from './context';

const MASKED = 'internal error; retry with exponential backoff';

export function appErrorExtensions(err: AppError, requestId: string): Record<string, unknown> {
  const ext: Record<string, unknown> = { code: err.code, request_id: requestId };
  if (err.extras.retry_after_secs !== undefined) ext.retry_after_secs = err.extras.retry_after_secs;
  if (err.extras.upgrade_url !== undefined) ext.upgrade_url = err.extras.upgrade_url;
  return ext;
}

/** A refusal before execution (context creation): also carries the HTTP status and headers. */
export function toHttpGraphQLError(err: AppError, requestId: string, headers: Record<string, string> = {}): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: {
      ...appErrorExtensions(err, requestId),
      http: { status: HTTP_STATUS[err.code], headers: new Map(Object.entries(headers)) },
    },
  });
}

/** Global resolver middleware: every error leaving a resolver is an AppError-shaped GraphQLError. */
export const errorBoundary: MiddlewareFn<GqlContext> = async ({ context }, next) => {
  try {
    return await next();
  } catch (err) {
    if (isAppError(err)) {
      if (err.cause) context.log.warn({ err: err.cause, code: err.code }, 'dependency failure');
      throw new GraphQLError(err.message, { extensions: appErrorExtensions(err, context.requestId) });
    }
    if (err instanceof GraphQLError && typeof err.extensions?.code === 'string') throw err;
    context.log.error({ err }, 'unexpected error in resolver');
    throw new GraphQLError(MASKED, { extensions: { code: 'DATABASE_ERROR', request_id: context.requestId } });
  }
};

/** Apollo formatError: never a stack trace; anything unclassified is masked. */
export function formatGraphQLError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const { stacktrace: _stack, ...extensions } = formatted.extensions ?? {};
  if (extensions.code === 'INTERNAL_SERVER_ERROR' || extensions.code === undefined) {
    return { message: MASKED, path: formatted.path, extensions: { ...extensions, code: 'DATABASE_ERROR' } };
  }
  // Bad argument values are the REST INVALID_PARAMETER; document errors keep Apollo's codes
  // (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED), which have no REST counterpart.
  if (extensions.code === 'BAD_USER_INPUT') return { ...formatted, extensions: { ...extensions, code: 'INVALID_PARAMETER' } };
  return { ...formatted, extensions };
}

/** Stamp the request id on every error of a response (parse and validation errors too). */
export function requestIdPlugin(): ApolloServerPlugin<GqlContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ contextValue, response }) {
          if (response.body.kind !== 'single') return;
          const errors = response.body.singleResult.errors;
          if (!errors) return;
          response.body.singleResult.errors = errors.map((e) =>
            e.extensions?.request_id ? e : { ...e, extensions: { ...e.extensions, request_id: contextValue.requestId } },
          );
        },
      };
    },
  };
}
