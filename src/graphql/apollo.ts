/**
 * POST /graphql (and GET for the Sandbox landing page). The context factory is the GraphQL
 * face of the access service: one HTTP request is one request against the key's quota, with
 * the same rate-limit headers as REST; a refusal before execution keeps its HTTP status.
 */
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AppError, isAppError } from '../domain/errors';
import { RateLimitedError, type AccessService } from '../services/access/access.service';
import { rateLimitHeaders } from '../services/access/rate-limit-headers';
import { setHeaders } from '../transport/set-headers';
import type { GqlContext } from './context';
import { appErrorExtensions, formatGraphQLError, requestIdPlugin, toHttpGraphQLError } from './errors';
import type { FieldLimiter } from './field-rate-limit';
import { createLoaders } from './loaders';
import { complexityPlugin, refuseDeepNesting } from './complexity';
import type { MarketDataService } from '../services/market-data.service';
import type { FeaturesService } from '../services/features.service';

export interface GraphQLDeps {
  schema: GraphQLSchema;
  access: AccessService;
  limitField: FieldLimiter;
  market: MarketDataService;
  features: FeaturesService;
}

/**
 * `express.json` for /graphql, whose refusals (not JSON, over 64 KB, an unreadable or badly
 * encoded body) are answered as a GraphQL response, `errors[0].extensions.code`
 * INVALID_PARAMETER with HTTP 400, as GraphQL clients expect, rather than as the REST envelope.
 */
function jsonBody(): RequestHandler {
  const parse = express.json({ limit: '64kb' });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      const e = err as { type?: unknown; status?: unknown } | undefined;
      if (!e || typeof e.status !== 'number' || e.status >= 500) return next(err);
      const reason =
        e.type === 'entity.too.large'
          ? 'request body is too large'
          : e.type === 'entity.parse.failed'
            ? 'request body is not valid JSON'
            : 'request body could not be read';
      const error = new AppError('INVALID_PARAMETER', `body: ${reason}`, { parameter: 'body' });
      res.status(400).json({ errors: [{ message: error.message, extensions: appErrorExtensions(error, req.ctx.id) }] });
    });
  };
}

export async function createGraphQLHandler(deps: GraphQLDeps): Promise<{ handler: RequestHandler[]; stop(): Promise<void> }> {
  const server = new ApolloServer<GqlContext>({
    schema: deps.schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // Shutdown belongs to server.ts (drain HTTP, stop Apollo, close pools, exit 0); Apollo's own
    // handler would re-raise the signal and end the process with 143.
    stopOnTerminationSignals: false,
    formatError: formatGraphQLError,
    plugins: [
      // Analysts' Sandbox: the page loads Apollo's assets in the browser; the server needs no internet.
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
      requestIdPlugin(),
      complexityPlugin(),
      // No HTTP caching of GraphQL here; the cache-control plugin would instrument every field.
      ApolloServerPluginCacheControlDisabled(),
    ],
  });
  await server.start();
  const middleware = expressMiddleware(server, {
    context: async ({ req, res }): Promise<GqlContext> => {
      const requestId = req.ctx.id;
      try {
        const { principal, quota } = await deps.access.check(req.header('x-api-key'));
        req.ctx.tier = principal.tier;
        setHeaders(res, rateLimitHeaders(quota));
        refuseDeepNesting([(req.body as { query?: unknown } | undefined)?.query, req.query.query].flat());
        return {
          requestId,
          log: req.ctx.log,
          principal,
          quota,
          limitField: deps.limitField,
          loaders: createLoaders(deps.market, deps.features),
          noteError: (e) => req.ctx.errors.push({ err: e, scope: 'field' }),
        };
      } catch (err) {
        if (!isAppError(err)) throw err;
        if (err instanceof RateLimitedError) req.ctx.tier = err.quota.tier;
        req.ctx.errors.push({ err, scope: 'request' });
        if (err.cause) req.ctx.log.warn({ err: err.cause, code: err.code }, 'dependency failure');
        const headers = err instanceof RateLimitedError ? rateLimitHeaders(err.quota) : {};
        if (err.extras.retry_after_secs !== undefined) headers['Retry-After'] = String(err.extras.retry_after_secs);
        throw toHttpGraphQLError(err, requestId, headers);
      }
    },
  });
  return {
    handler: [jsonBody(), middleware],
    stop: () => server.stop(),
  };
}
