/**
 * Per-request GraphQL state, built in one place for every operation: an HTTP request
 * (apollo.ts) and an operation over the WebSocket (subscriptions.ts) alike.
 */
import type { AppError } from '../domain/errors';
import type { Logger } from '../logger';
import type { Principal, QuotaStatus } from '../services/access/principal';
import type { FieldLimiter } from './field-rate-limit';
import { createLoaders, type LoaderServices, type Loaders } from './loaders';
import type { RawJsonParts } from './raw-json';

export interface GqlContext {
  requestId: string;
  log: Logger;
  principal: Principal;
  quota: QuotaStatus;
  limitField: FieldLimiter;
  loaders: Loaders;
  /** Note an error raised during execution (metrics). */
  noteError(err: AppError): void;
  /** A subscription's events, opened by the WebSocket edge before execution. */
  events?: AsyncIterable<unknown>;
  /** Parts of an HTTP response its resolvers write as bytes (raw-json.ts); absent on a WebSocket. */
  rawJson?: RawJsonParts;
  /** Let go of what execution read (the DataLoaders' pages) once the result is made (Loaders.release). */
  release(): void;
}

export interface OperationContextInput {
  requestId: string;
  /** The request's logger, made on first use. */
  logger: () => Logger;
  principal: Principal;
  quota: QuotaStatus;
  limitField: FieldLimiter;
  loaderServices: LoaderServices;
  noteError?: (err: AppError) => void;
  rawJson?: RawJsonParts;
}

/**
 * The context of one operation. The logger and the DataLoaders are made on first use: an open
 * subscription keeps its context for as long as it lives and most never need either.
 */
export function operationContext(input: OperationContextInput): GqlContext {
  let log: Logger | undefined;
  let loaders: Loaders | undefined;
  return {
    requestId: input.requestId,
    get log() {
      return (log ??= input.logger());
    },
    principal: input.principal,
    quota: input.quota,
    limitField: input.limitField,
    get loaders() {
      return (loaders ??= createLoaders(input.loaderServices, input.principal));
    },
    noteError: input.noteError ?? (() => undefined),
    rawJson: input.rawJson,
    release() {
      loaders?.release();
      loaders = undefined;
    },
  };
}
