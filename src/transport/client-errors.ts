/** What both transports do with a request's client errors before answering them. */
import type { Request } from 'express';
import { AppError, isAppError } from '../domain/errors';

/**
 * Turn client errors raised by Express and body-parser into AppErrors: body failures name
 * `body`; any other 4xx they raise (a path with malformed percent-encoding, say) is the
 * request's fault too. Anything else is unknown (null).
 */
export function toAppError(err: unknown): AppError | null {
  if (isAppError(err)) return err;
  const e = err as { type?: string; status?: number; expose?: boolean } | null;
  if (!e || typeof e.status !== 'number' || e.status < 400 || e.status >= 500) return null;
  // body-parser's own errors carry a `type`.
  if (typeof e.type === 'string') {
    const reason =
      e.type === 'entity.too.large'
        ? 'request body is too large'
        : e.type === 'entity.parse.failed'
          ? 'request body is not valid JSON'
          : e.type === 'encoding.unsupported' || e.type === 'charset.unsupported'
            ? 'request body encoding is not supported'
            : 'request body could not be read';
    return new AppError('INVALID_PARAMETER', `body: ${reason}`, { parameter: 'body' });
  }
  if ((err as Error).name === 'URIError') return new AppError('INVALID_PARAMETER', 'the path has malformed percent-encoding');
  // The rest come from reading the body (a Content-Encoding that does not decode, say): body
  // parsers are the only other source of 4xx errors in this app.
  return new AppError('INVALID_PARAMETER', 'body: request body could not be read', { parameter: 'body' });
}

/**
 * Count a refused or failed request for the metrics; a dependency failure's cause at debug level
 * (the outage itself is logged once when it starts and once when it ends: DependencyState).
 */
export function recordRequestError(req: Request, err: AppError): void {
  if (err.cause) req.ctx.log.debug({ err: err.cause, code: err.code }, 'dependency failure');
  req.ctx.errors.push({ err, scope: 'request' });
}
