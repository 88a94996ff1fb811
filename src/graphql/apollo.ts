/**
 * POST /graphql (and GET for the Sandbox landing page). The context factory is the GraphQL
 * face of the access service: one HTTP request is one request against the key's quota, with
 * the same rate-limit headers as REST; a refusal before execution keeps its HTTP status.
 */
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AppError, isAppError } from '../domain/errors';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import type { AccessService, Admission } from '../services/access/access.service';
import { admitRequest } from '../transport/access.middleware';
import { recordRequestError, toAppError } from '../transport/client-errors';
import { HTTP_STATUS } from '../transport/http-status';
import { compiledExecution } from './compiled-execution';
import { complexityPlugin, refuseDeepNesting } from './complexity';
import { operationContext, type GqlContext } from './context';
import { appErrorExtensions, formatGraphQLError, requestIdPlugin, toHttpGraphQLError } from './errors';
import type { FieldLimiter } from './field-rate-limit';
import type { LoaderServices } from './loaders';
import { RawJsonParts } from './raw-json';
import { refuseUnsafeSubscription } from './validation';

export interface GraphQLDeps {
  schema: GraphQLSchema;
  /** Execution compiled by graphql-jit (GRAPHQL_COMPILED), else graphql-js's. */
  compiled: boolean;
  access: AccessService;
  limitField: FieldLimiter;
  /** The services the per-request DataLoaders batch reads through. */
  loaders: LoaderServices;
  /** The reads (the cost rules take their bounds) and the clock (a funding window's default end is now). */
  endpoints: MarketEndpoints;
  clock: () => number;
}

/** What every refused /graphql request gets: counted, its cause logged, Retry-After when it has one. */
function noteRefusal(req: Request, res: Response, err: AppError): void {
  recordRequestError(req, err);
  if (err.extras.retry_after_secs !== undefined) res.setHeader('Retry-After', String(err.extras.retry_after_secs));
}

/** The GraphQL-over-HTTP media type: a client that accepts it reads the body of any status. */
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/**
 * Answer a refusal before Apollo as GraphQL clients expect: `errors` with the code, its HTTP
 * status, as `application/graphql-response+json` when the client accepts it (as Apollo answers
 * itself): with plain JSON and a non-2xx status, Apollo Client and other spec-following clients
 * would not parse the body, and the code would be lost to them.
 */
function sendRefusal(req: Request, res: Response, err: AppError): void {
  noteRefusal(req, res, err);
  const type = req.accepts(['application/json', GRAPHQL_RESPONSE]) === GRAPHQL_RESPONSE ? GRAPHQL_RESPONSE : 'application/json';
  res.setHeader('Content-Type', `${type}; charset=utf-8`);
  res.status(HTTP_STATUS[err.code]).send(JSON.stringify({ errors: [{ message: err.message, extensions: appErrorExtensions(err, req.ctx.id) }] }));
}

/**
 * /graphql before Apollo, in the contract's check order. A POST is admitted first: the key
 * and the quota (401, 429, 503, by the same `admitRequest` as REST, so from here on the
 * request counts and carries the headers), then its body: `application/json`, at most 64 KB,
 * valid JSON, else 400 INVALID_PARAMETER naming `body` (REST's mapping of body-parser errors).
 * Other methods (GET: the Sandbox page, which needs no key, or a query in the URL, admitted in
 * the context factory) go straight to the body parser, which Apollo's Express integration
 * requires to have run.
 */
function admitAndParse(access: AccessService): RequestHandler {
  const json = express.json({ limit: '64kb' });
  const parse: RequestHandler = (req, res, next) =>
    json(req, res, (err?: unknown) => {
      if (!err) return next();
      const known = toAppError(err);
      return known ? sendRefusal(req, res, known) : next(err);
    });
  return (req, res, next) => {
    if (req.method !== 'POST') return parse(req, res, next);
    admitRequest(access, req, res).then(
      () => {
        if (!req.is('application/json')) {
          return sendRefusal(req, res, new AppError('INVALID_PARAMETER', 'body: Content-Type must be application/json', { parameter: 'body' }));
        }
        parse(req, res, next);
      },
      (err: unknown) => (isAppError(err) ? sendRefusal(req, res, err) : next(err)),
    );
  };
}

/**
 * What Apollo sends, finished here: an error status's body gets the request id (Apollo refuses
 * some requests before it builds their context, so the plugin that stamps `request_id` on every
 * error never sees them; only an error status is looked at, so a data response is never parsed
 * again), and a data response whose resolvers wrote parts as bytes gets them in place of their
 * tokens (raw-json.ts).
 */
function finishBody(): RequestHandler {
  return (req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      if (typeof body !== 'string') return send(body);
      if (res.statusCode >= 400) return send(withRequestId(body, req.ctx.id));
      const raw = res.locals.rawJson as RawJsonParts | undefined;
      return send(raw !== undefined && raw.size > 0 ? raw.body(body) : body);
    };
    next();
  };
}

/** Puts the tokens of the parts written as bytes into the result, before Apollo serializes it; the context lets its reads go. */
function rawJsonPlugin(): ApolloServerPlugin<GqlContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          if (contextValue.rawJson?.size && response.body.kind === 'single') contextValue.rawJson.place(response.body.singleResult.data);
          contextValue.release();
        },
      };
    },
  };
}

type ErrorList = Array<{ extensions?: Record<string, unknown> } | null>;

function withRequestId(text: string, requestId: string): string {
  let answer: { errors?: ErrorList } | null;
  try {
    answer = JSON.parse(text) as { errors?: ErrorList } | null;
  } catch {
    return text;
  }
  const errors = answer?.errors;
  if (!answer || !Array.isArray(errors) || errors.every((e) => e?.extensions?.request_id)) return text;
  answer.errors = errors.map((e) => ({ ...e, extensions: { ...e?.extensions, request_id: requestId } }));
  return JSON.stringify(answer);
}

export async function createGraphQLHandler(deps: GraphQLDeps): Promise<{ handler: RequestHandler[]; stop(): Promise<void> }> {
  const server = new ApolloServer<GqlContext>({
    // Execution by graphql-jit (compiled-execution.ts); parsing, validation and plugins stay Apollo's.
    ...(deps.compiled ? { gateway: compiledExecution(deps.schema) } : { schema: deps.schema }),
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // CSRF prevention guards cookie sessions; this API has none. Its credential is the
    // X-API-Key header, which a cross-site form cannot send, so a simple request without it
    // is a 401 anyway. Left on, it would answer a GET query or a text/plain POST with its own
    // BAD_REQUEST before the key, the quota and the body checks.
    csrfPrevention: false,
    // Shutdown belongs to server.ts (drain HTTP, stop Apollo, close pools, exit 0); Apollo's own
    // handler would re-raise the signal and end the process with 143.
    stopOnTerminationSignals: false,
    formatError: formatGraphQLError,
    plugins: [
      // Analysts' Sandbox: the page loads Apollo's assets in the browser; the server needs no internet.
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
      requestIdPlugin(),
      complexityPlugin(deps.endpoints, deps.clock),
      rawJsonPlugin(),
      // No HTTP caching of GraphQL here; the cache-control plugin would instrument every field.
      ApolloServerPluginCacheControlDisabled(),
    ],
  });
  await server.start();
  const middleware = expressMiddleware(server, {
    context: async ({ req, res }): Promise<GqlContext> => {
      let admission: Admission;
      try {
        // A POST was admitted by admitAndParse, before its body; a GET operation is admitted here.
        admission = req.ctx.admission ?? (await admitRequest(deps.access, req, res));
        refuseDeepNesting([(req.body as { query?: unknown } | undefined)?.query, req.query.query].flat());
      } catch (err) {
        if (!isAppError(err)) throw err;
        noteRefusal(req, res, err);
        throw toHttpGraphQLError(err, req.ctx.id);
      }
      for (const text of [(req.body as { query?: unknown } | undefined)?.query, req.query.query].flat()) refuseUnsafeSubscription(text);
      const rawJson = new RawJsonParts();
      res.locals.rawJson = rawJson;
      return operationContext({
        rawJson,
        requestId: req.ctx.id,
        logger: () => req.ctx.log,
        principal: admission.principal,
        quota: admission.quota,
        limitField: deps.limitField,
        loaderServices: deps.loaders,
        noteError: (e) => req.ctx.errors.push({ err: e, scope: 'field' }),
      });
    },
  });
  return {
    handler: [admitAndParse(deps.access), finishBody(), middleware],
    stop: () => server.stop(),
  };
}
