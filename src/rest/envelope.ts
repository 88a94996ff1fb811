/**
 * The REST edge of the error family: one table from code to HTTP status, and the envelope
 * `{ error, message, request_id, ...extras }`. Unknown errors are masked as 500 DATABASE_ERROR.
 */
import type { Response } from 'express';
import { AppError, type ErrorCode } from '../domain/errors';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_TIMEFRAME: 400,
  INVALID_TIMESTAMP: 400,
  INVALID_TIME_RANGE: 400,
  INVALID_EXCHANGE: 400,
  INVALID_PARAMETER: 400,
  MISSING_PARAMETER: 400,
  MISSING_FEATURES: 400,
  UNKNOWN_FEATURES: 400,
  MISSING_SYMBOLS: 400,
  KEY_CREATION_DISABLED: 400,
  INVALID_TIER: 400,
  INVALID_IMPORT: 400,
  QUERY_TOO_COMPLEX: 400,
  UNAUTHORIZED: 401,
  TIER_LIMIT_EXCEEDED: 403,
  QUALITY_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  NOT_FOUND: 404,
  RATE_LIMIT_EXCEEDED: 429,
  DATABASE_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export interface Envelope {
  error: ErrorCode;
  message: string;
  request_id: string;
  retry_after_secs?: number;
  upgrade_url?: string;
}

export function toEnvelope(err: AppError, requestId: string): Envelope {
  const env: Envelope = { error: err.code, message: err.message, request_id: requestId };
  if (err.extras.retry_after_secs !== undefined) env.retry_after_secs = err.extras.retry_after_secs;
  if (err.extras.upgrade_url !== undefined) env.upgrade_url = err.extras.upgrade_url;
  return env;
}

export function sendError(res: Response, err: AppError, requestId: string): void {
  if (err.extras.retry_after_secs !== undefined) res.setHeader('Retry-After', String(err.extras.retry_after_secs));
  res.status(HTTP_STATUS[err.code]).json(toEnvelope(err, requestId));
}
