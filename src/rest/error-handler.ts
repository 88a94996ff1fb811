/** The one Express error handler: AppErrors become envelopes, anything else a masked 500. */
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../domain/errors';
import { recordRequestError, toAppError } from '../transport/client-errors';
import { sendError } from './envelope';

export function errorHandler() {
  return function errorHandlerMiddleware(err: unknown, req: Request, res: Response, _next: NextFunction): void {
    const known = toAppError(err);
    if (known) {
      recordRequestError(req, known);
      sendError(res, known, req.ctx.id);
      return;
    }
    req.ctx.log.error({ err }, 'unexpected error');
    const masked = new AppError('DATABASE_ERROR', 'internal error; retry with exponential backoff');
    recordRequestError(req, masked);
    sendError(res, masked, req.ctx.id);
  };
}

export function notFound() {
  return function notFoundMiddleware(req: Request, res: Response): void {
    sendError(res, new AppError('NOT_FOUND', `no route for ${req.method} ${req.path}`), req.ctx.id);
  };
}
