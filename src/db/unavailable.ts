/**
 * A database that cannot be reached, or does not answer in time, is a 503
 * SERVICE_UNAVAILABLE (retry shortly), not an internal error: such failures are recognised
 * here, once, for both engines and for both the raw SQL surface and Prisma.
 */
import { AppError } from '../domain/errors';
import type { PrismaClient } from './generated/prisma/client';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

const MESSAGES = new RegExp(
  [
    'Connection terminated', // pg: socket closed, incl. "... due to connection timeout"
    'timeout exceeded when trying to connect', // pg-pool: no connection within DATABASE_CONNECT_TIMEOUT
    'Query read timeout', // pg: no answer within the statement's client-side timeout
    'connect ECONNREFUSED',
    'PGlite is closed',
    'Client has encountered a connection error',
  ].join('|'),
  'i',
);

/**
 * Prisma's own codes: P1001 can't reach the server, P1002 timed out reaching it, P1008
 * operation timed out, P1017 server closed the connection, P2024 no pool connection in time.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** What Prisma's driver adapter reports (`meta.driverAdapterError.cause.kind`) for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

function isSqlState(code: string): boolean {
  // Class 08 (connection exception), 57P01-03 (shutdown, cannot connect now), 53300 (too many
  // connections), 57014 (query canceled: statement_timeout, i.e. DATABASE_QUERY_TIMEOUT), 25006
  // (read-only transaction: a connection that landed on a demoted primary or a standby).
  return /^08/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300' || code === '57014' || code === '25006';
}

type Failure = { code?: unknown; message?: unknown; cause?: unknown; meta?: unknown; kind?: unknown; originalCode?: unknown };

function isFailure(e: Failure): boolean {
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (CONNECTION_CODES.has(code) || PRISMA_CODES.has(code) || isSqlState(code))) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.originalCode === 'string' && isSqlState(e.originalCode)) return true;
  return typeof e.message === 'string' && MESSAGES.test(e.message);
}

export function isConnectionFailure(err: unknown): boolean {
  // Drivers and Prisma wrap the socket error: look a few causes deep, and into the driver
  // adapter's error that Prisma keeps in `meta`.
  let e = err as Failure | null;
  for (let depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    if (isFailure(e)) return true;
    const adapter = (e.meta as { driverAdapterError?: { cause?: Failure } } | undefined)?.driverAdapterError?.cause;
    if (adapter && typeof adapter === 'object' && isFailure(adapter)) return true;
    e = e.cause as Failure | null;
  }
  return false;
}

/**
 * A failure of the connection itself (closed, reset, refused, the server shutting down or in
 * recovery), as opposed to a timeout: a read may run again at once on a fresh connection.
 */
export function isLostConnection(err: unknown): boolean {
  if (!isConnectionFailure(err)) return false;
  const text = `${(err as { code?: unknown }).code ?? ''} ${(err as { message?: unknown }).message ?? ''}`;
  return !/57014|53300|timeout|timed out|PGlite is closed/i.test(text);
}

/** A statement that only reads (SELECT, or WITH without a data-modifying part): safe to run again. */
export function isReadOnlyStatement(text: string): boolean {
  const head = text.trimStart().slice(0, 6).toUpperCase();
  if (head === 'SELECT') return true;
  return head.startsWith('WITH') && !/\b(INSERT|UPDATE|DELETE|MERGE)\b/i.test(text);
}

/** Rethrow connection failures as SERVICE_UNAVAILABLE (the original kept as the cause). */
export function mapUnavailable(err: unknown): never {
  if (err instanceof AppError) throw err;
  if (isConnectionFailure(err)) {
    throw new AppError('SERVICE_UNAVAILABLE', 'the database is temporarily unavailable; retry shortly', { dependency: 'database' }, err);
  }
  throw err;
}

/**
 * The same mapping for every Prisma operation (the key lookups, the key list, quality reads
 * and writes): without it a connection failure met through Prisma surfaced as a 500.
 */
export function withUnavailableMapping(prisma: PrismaClient): PrismaClient {
  return prisma.$extends({
    name: 'unavailable',
    query: {
      async $allOperations({ args, query }) {
        try {
          return await query(args);
        } catch (err) {
          return mapUnavailable(err);
        }
      },
    },
  }) as unknown as PrismaClient;
}
