/** The one Express error handler: AppErrors become envelopes, anything else a masked 500. */
import type { NextFunction, Request, Response } from 'express';
import { AppError, isAppError } from '../domain/errors';
import { sendError } from './envelope';

/** Turn body-parser failures and unknown errors into AppErrors. */
export function toAppError(err: unknown): AppError | null {
  if (isAppError(err)) return err;
  const e = err as { type?: string; status?: number };
  if (e && typeof e.type === 'string' && typeof e.status === 'number' && e.status < 500) {
    const reason =
      e.type === 'entity.too.large'
        ? 'request body is too large'
        : e.type === 'entity.parse.failed'
          ? 'request body is not valid JSON'
          : 'request body could not be read';
    return new AppError('INVALID_PARAMETER', `body: ${reason}`, { parameter: 'body' });
  }
  return null;
}

export function errorHandler() {
  return function errorHandlerMiddleware(err: unknown, req: Request, res: Response, _next: NextFunction): void {
    const known = toAppError(err);
    if (known) {
      if (known.cause) req.ctx.log.warn({ err: known.cause, code: known.code }, 'dependency failure');
      sendError(res, known, req.ctx.id);
      return;
    }
    req.ctx.log.error({ err }, 'unexpected error');
    sendError(res, new AppError('DATABASE_ERROR', 'internal error; retry with exponential backoff'), req.ctx.id);
  };
}

export function notFound() {
  return function notFoundMiddleware(req: Request, res: Response): void {
    sendError(res, new AppError('NOT_FOUND', `no route for ${req.method} ${req.path}`), req.ctx.id);
  };
}
