/** Per-request GraphQL state, built in one place (graphql/apollo.ts) for every operation. */
import type { AppError } from '../domain/errors';
import type { Logger } from '../logger';
import type { FieldLimiter } from './field-rate-limit';
import type { Loaders } from './loaders';
import type { Principal, QuotaStatus } from '../services/access/principal';

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
}
