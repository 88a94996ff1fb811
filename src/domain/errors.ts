/**
 * The error family of the domain: a stable code, a human message and optional extras.
 * No HTTP here; each transport maps codes to its own statuses in one table at its edge.
 */

export const ERROR_CODES = [
  'INVALID_TIMEFRAME',
  'INVALID_TIMESTAMP',
  'INVALID_TIME_RANGE',
  'INVALID_EXCHANGE',
  'INVALID_PARAMETER',
  'MISSING_PARAMETER',
  'MISSING_FEATURES',
  'UNKNOWN_FEATURES',
  'MISSING_SYMBOLS',
  'KEY_CREATION_DISABLED',
  'INVALID_TIER',
  'UNAUTHORIZED',
  'TIER_LIMIT_EXCEEDED',
  'QUALITY_NOT_FOUND',
  'KEY_NOT_FOUND',
  'NOT_FOUND',
  'RATE_LIMIT_EXCEEDED',
  'QUERY_TOO_COMPLEX',
  'INVALID_IMPORT',
  'DATABASE_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorExtras {
  retry_after_secs?: number;
  upgrade_url?: string;
  /** The offending parameter, for INVALID_PARAMETER / MISSING_PARAMETER. */
  parameter?: string;
  /** SERVICE_UNAVAILABLE: which dependency failed (logs and metrics only, never rendered). */
  dependency?: 'database' | 'redis';
}

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
    /** The underlying failure, for the log only (never shown to clients). */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
