/**
 * GraphQL over WebSocket (graphql-ws, graphql-transport-ws) on the HTTP server's /graphql, with
 * HTTP's access rules (docs/ARCHITECTURE.md, Events and subscriptions): the key comes in
 * `connection_init` or the upgrade's X-API-Key, else close 4403; each `subscribe` counts as one
 * request, is checked and opened through SubscriptionsService, and a refusal is a graphql-ws
 * `error` with the REST code in `extensions` (the socket stays open); a revoked key's sockets
 * close within REVOCATION_CHECK_MS; a client that stops answering pings is dropped.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, Kind, getOperationAST, parse, validate, type DocumentNode, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { getArgumentValues, getVariableValues } from 'graphql/execution/values';
import type { Context, SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError, isAppError } from '../domain/errors';
import type { MarketEndpoints } from '../domain/params/market-endpoints';
import type { Logger } from '../logger';
import type { AccessService } from '../services/access/access.service';
import type { Principal } from '../services/access/principal';
import type { SubscriptionsService } from '../services/events/subscriptions.service';
import { rawOf } from './args';
import { refuseComplexOperation, refuseDeepNesting } from './complexity';
import { operationContext } from './context';
import { appErrorExtensions } from './errors';
import type { FieldLimiter } from './field-rate-limit';
import { graphqlField } from './fields';
import type { LoaderServices } from './loaders';
import { VALIDATION_RULES } from './validation';

/** How often the keys of open sockets are checked for revocation (the 1 s promise, with room). */
export const REVOCATION_CHECK_MS = 500;

/** The graphql-ws close code and reason of a key that is not (or no longer) good. */
export const UNAUTHORIZED_CLOSE = { code: 4403, reason: 'UNAUTHORIZED' } as const;

export interface SubscriptionServerDeps {
  schema: GraphQLSchema;
  access: AccessService;
  subscriptions: SubscriptionsService;
  endpoints: MarketEndpoints;
  limitField: FieldLimiter;
  loaders: LoaderServices;
  clock: () => number;
  logger: Logger;
  /** Ping interval; a socket without a pong by the next one is dropped (ms). */
  keepAliveMs: number;
}

interface Extra extends Record<PropertyKey, unknown> {
  socket: WebSocket;
  request: http.IncomingMessage;
  principal?: Principal;
  /** The streams opened on this socket, by subscription id (ended when it completes or closes). */
  opened?: Map<string, AsyncIterator<unknown>>;
}

type Ctx = Context<Record<string, unknown> | undefined, Extra>;

/** A refusal as graphql-ws sends it: the message, and the REST code and extras in extensions. */
function refusal(err: AppError, requestId: string): GraphQLError[] {
  return [new GraphQLError(err.message, { extensions: appErrorExtensions(err, requestId) })];
}

/** Each subscription field: the domain method that opens its stream (its endpoint is in fields.ts). */
const SUBSCRIPTION_STREAMS: Record<string, (s: SubscriptionsService, caller: Principal, raw: Record<string, unknown>) => AsyncIterableIterator<unknown>> = {
  candleClosed: (s, caller, raw) => s.candleClosed(caller, raw),
  derivativesClosed: (s, caller, raw) => s.derivativesClosed(caller, raw),
  fundingSettled: (s, caller, raw) => s.fundingSettled(caller, raw),
  qualityChanged: (s, caller, raw) => s.qualityChanged(caller, raw),
};

/** Documents kept parsed and validated (a dashboard sends a handful; 1,000 clients send the same ones). */
export const CHECKED_DOCUMENTS = 500;

/**
 * The parse and validation of each document text, kept (least recently used out), as Apollo's
 * document store does for HTTP: a burst of subscribes with one document costs one parse and one
 * validation (a burst must not hold the event loop past the quota store's timeout), and open
 * subscriptions share one document instead of a copy each.
 */
class CheckedDocuments {
  private readonly cache = new Map<string, { document: DocumentNode } | { errors: readonly GraphQLError[] }>();

  constructor(private readonly schema: GraphQLSchema) {}

  checked(text: string): { document: DocumentNode } | { errors: readonly GraphQLError[] } {
    let entry = this.cache.get(text);
    if (entry) {
      this.cache.delete(text);
    } else {
      entry = this.check(text);
      if (this.cache.size >= CHECKED_DOCUMENTS) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(text, entry);
    return entry;
  }

  private check(text: string): { document: DocumentNode } | { errors: readonly GraphQLError[] } {
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch (err) {
      return { errors: [new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })] };
    }
    const invalid = validate(this.schema, document, VALIDATION_RULES);
    if (invalid.length) return { errors: invalid.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) };
    return { document };
  }
}

/** The key a socket presents: `connection_init`'s `apiKey`, else the upgrade's X-API-Key header. */
function keyOf(ctx: Ctx): string | undefined {
  const fromParams = ctx.connectionParams?.apiKey;
  const header = ctx.extra.request.headers['x-api-key'];
  return typeof fromParams === 'string' ? fromParams : typeof header === 'string' ? header : undefined;
}

/** A document checked as HTTP checks it: nesting, parse and validation (kept), the operation, its variables, the cost rules. */
type CheckedOperation = { document: DocumentNode; operation: OperationDefinitionNode; variables: Record<string, unknown> } | { errors: GraphQLError[] };

function checkOperation(deps: SubscriptionServerDeps, documents: CheckedDocuments, payload: SubscribePayload, requestId: string): CheckedOperation {
  refuseDeepNesting([payload.query]);
  const checked = documents.checked(payload.query);
  if ('errors' in checked) return { errors: checked.errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { ...e.extensions, request_id: requestId } })) };
  const { document } = checked;
  const operation = getOperationAST(document, payload.operationName);
  if (!operation) throw new AppError('INVALID_PARAMETER', 'no operation of that name in the document', { parameter: 'operationName' });
  const variables = getVariableValues(deps.schema, operation.variableDefinitions ?? [], payload.variables ?? {});
  if (variables.errors) return { errors: variables.errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'INVALID_PARAMETER', request_id: requestId } })) };
  refuseComplexOperation(deps.endpoints, document, operation, payload.variables ?? {}, deps.clock());
  return { document, operation, variables: variables.coerced };
}

/** Open the stream of a subscription operation's one root field (validation guarantees one), so that a refusal is an `error` message. */
function openStream(deps: SubscriptionServerDeps, principal: Principal, operation: OperationDefinitionNode, variables: Record<string, unknown>): AsyncIterableIterator<unknown> {
  const field = operation.selectionSet.selections[0] as FieldNode;
  const name = field.kind === Kind.FIELD ? field.name.value : '';
  const def = deps.schema.getSubscriptionType()?.getFields()[name];
  const open = SUBSCRIPTION_STREAMS[name];
  const declared = graphqlField(name);
  if (!def || !open || !declared) throw new AppError('INVALID_PARAMETER', `unknown subscription ${name}`);
  const args = getArgumentValues(def, field, variables);
  return open(deps.subscriptions, principal, rawOf(deps.endpoints[declared.endpoint], args));
}

/** Every REVOCATION_CHECK_MS, close the sockets whose key was revoked; returns the stopper. */
function watchRevocations(deps: SubscriptionServerDeps, sockets: Map<WebSocket, string>): () => void {
  let checking = false;
  const timer = setInterval(() => {
    if (checking || sockets.size === 0) return;
    checking = true;
    deps.access
      .revokedAmong([...new Set(sockets.values())])
      .then((revoked) => {
        if (revoked.length === 0) return;
        const gone = new Set(revoked);
        for (const [ws, keyHash] of sockets) if (gone.has(keyHash)) closeUnauthorized(ws);
      })
      // The key store unreachable: checked again next time (and requests are refused meanwhile).
      .catch((err: unknown) => deps.logger.warn({ err }, 'subscriptions: revocation check failed'))
      .finally(() => (checking = false));
  }, REVOCATION_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

const closeUnauthorized = (ws: WebSocket) => ws.close(UNAUTHORIZED_CLOSE.code, UNAUTHORIZED_CLOSE.reason);

/** Serve graphql-ws on `server`'s upgrades to /graphql; returns the stopper (closes every socket). */
export function attachSubscriptions(server: http.Server, deps: SubscriptionServerDeps): { sockets(): number; stop(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const documents = new CheckedDocuments(deps.schema);
  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  };
  server.on('upgrade', onUpgrade);

  /** Open sockets by the key they were admitted with (for the revocation check). */
  const sockets = new Map<WebSocket, string>();

  const serverCleanup = useServer<Record<string, unknown> | undefined, Extra>(
    {
      schema: deps.schema,
      async onConnect(ctx: Ctx) {
        try {
          ctx.extra.principal = await deps.access.authenticate(keyOf(ctx));
        } catch (err) {
          if (isAppError(err) && err.code === 'SERVICE_UNAVAILABLE') ctx.extra.socket.close(1013, 'SERVICE_UNAVAILABLE');
          else closeUnauthorized(ctx.extra.socket);
          return false;
        }
        ctx.extra.opened = new Map();
        sockets.set(ctx.extra.socket, ctx.extra.principal.keyHash);
        return true;
      },
      async onSubscribe(ctx: Ctx, id: string, payload: SubscribePayload) {
        const principal = ctx.extra.principal!;
        const requestId = randomUUID();
        try {
          const quota = await deps.access.countRequest(principal);
          const checked = checkOperation(deps, documents, payload, requestId);
          if ('errors' in checked) return checked.errors;
          const contextValue = operationContext({
            requestId,
            logger: () => deps.logger.child({ request_id: requestId }),
            principal,
            quota,
            limitField: deps.limitField,
            loaderServices: deps.loaders,
          });
          // Queries and mutations may come over the socket too: counted and checked as above, run on graphql-js.
          if (checked.operation.operation === 'subscription') {
            const stream = openStream(deps, principal, checked.operation, checked.variables);
            ctx.extra.opened!.set(id, stream);
            contextValue.events = stream;
          }
          return { schema: deps.schema, document: checked.document, operationName: payload.operationName, variableValues: payload.variables ?? {}, contextValue };
        } catch (err) {
          if (isAppError(err)) return refusal(err, requestId);
          deps.logger.error({ err, request_id: requestId }, 'unexpected error opening a subscription');
          return refusal(new AppError('DATABASE_ERROR', 'internal error; retry with exponential backoff'), requestId);
        }
      },
      async onComplete(ctx: Ctx, id: string) {
        const stream = ctx.extra.opened?.get(id);
        ctx.extra.opened?.delete(id);
        await stream?.return?.();
      },
      async onClose(ctx: Ctx) {
        sockets.delete(ctx.extra.socket);
        const streams = [...(ctx.extra.opened?.values() ?? [])];
        ctx.extra.opened?.clear();
        await Promise.all(streams.map((s) => s.return?.()));
      },
    },
    wss,
    deps.keepAliveMs,
  );
  const stopRevocationChecks = watchRevocations(deps, sockets);

  return {
    sockets: () => sockets.size,
    async stop() {
      stopRevocationChecks();
      server.off('upgrade', onUpgrade);
      await serverCleanup.dispose();
    },
  };
}
