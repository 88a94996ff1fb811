/**
 * A database that cannot be reached is a 503 SERVICE_UNAVAILABLE (retry shortly), not an
 * internal error: connection failures are recognised here, once, for both engines.
 */
import { AppError } from '../domain/errors';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

export function isConnectionFailure(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && CONNECTION_CODES.has(e.code)) return true;
  // SQLSTATE class 08 (connection exception), 57P01-03 (shutdown, cannot connect now).
  if (e.code && (/^08/.test(e.code) || /^57P0[1-3]$/.test(e.code))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|PGlite is closed|Client has encountered a connection error/i.test(
    e.message ?? '',
  );
}

/** Rethrow connection failures as SERVICE_UNAVAILABLE (the original kept as the cause). */
export function mapUnavailable(err: unknown): never {
  if (isConnectionFailure(err)) {
    throw new AppError('SERVICE_UNAVAILABLE', 'the database is temporarily unavailable; retry shortly', {}, err);
  }
  throw err;
}
