/**
 * The storage port. Prisma serves the ordinary reads and writes; the raw SQL surface is for
 * what Prisma cannot do well (COPY-class bulk import, set-based rollups, the hot 10,000-row
 * reads). Two implementations: PostgreSQL server (pg pool) and embedded PGlite.
 */
import type { PrimaryLocator } from './primary-locator';
import type { PrismaClient } from './generated/prisma/client';

export type Row = Record<string, unknown>;

export interface QueryOptions {
  /**
   * Give up on this statement after this long (ms), as if the server were unreachable
   * (SERVICE_UNAVAILABLE). Only for statements run on the pool (`Database.query`); there the
   * default is DATABASE_QUERY_TIMEOUT. Ignored by PGlite, which runs in this process.
   */
  timeoutMs?: number;
  /**
   * Run as a prepared statement of the connection (PostgreSQL server): parsed once per
   * connection, its plan cached by the server. Only for statements whose text is fixed (one
   * prepared statement per distinct text and connection): the hot ones, where parsing and
   * planning cost more than executing (bench/README.md).
   */
  prepare?: boolean;
  /**
   * Rows as arrays of each value's text as PostgreSQL prints it (no type parsing; NULL stays
   * null): for the hot page reads, which render the values themselves (`apiTimeOfEpoch`,
   * `fixedPlaces`) instead of asking PostgreSQL to format them (bench/README.md).
   */
  textRows?: boolean;
  /**
   * Turn each row into what the caller keeps, as it arrives: the query returns the mapped rows.
   * On PostgreSQL the driver's rows are then never all held at once (held beside the mapped rows,
   * they are garbage the collector has to copy, bench/README.md).
   */
  mapRow?: (row: never) => unknown;
}

/** A row of a `textRows` query. */
export type { TextRow } from '../domain/market';

export type CopyFormat = 'csv' | 'binary';

/** One connection's worth of SQL. int8 comes back as number, numeric as string. */
export interface SqlSession {
  query<R extends object = Row>(text: string, params?: unknown[], opts?: QueryOptions): Promise<R[]>;
  /** Run a script of several statements (no parameters, no result). */
  exec(script: string): Promise<void>;
  /**
   * COPY rows into `table(columns)`: CSV text (chunks of complete lines, no header), or binary
   * rows (chunks of whole rows, BinaryRows; the header and trailer are added here).
   */
  copyFrom(table: string, columns: readonly string[], chunks: AsyncIterable<string | Buffer>, format?: CopyFormat): Promise<void>;
}

export interface Database extends SqlSession {
  readonly kind: 'postgres' | 'pglite';
  readonly prisma: PrismaClient;
  /** Run `fn` on one dedicated connection (session-level locks, temp tables). */
  session<T>(fn: (s: SqlSession) => Promise<T>): Promise<T>;
  /** Run `fn` in one transaction on one connection; rolled back if it throws. */
  transaction<T>(fn: (s: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Statements on a connection of their own, each committed at once, also while the caller
   * holds a transaction: the partitions a writer needs (partitions.ts). PostgreSQL: a pool of
   * one connection, opened on first use. PGlite: null (one connection: the caller's own
   * transaction runs them).
   */
  readonly autonomous: Pick<SqlSession, 'query'> | null;
  /** PostgreSQL: where new connections go (the primary of a multi-host URL); PGlite: none. */
  readonly locator?: PrimaryLocator;
  /**
   * Listen to a channel (LISTEN): `onMessage` with each payload NOTIFY sends, once its
   * transaction committed; `onListening(false)` when messages may have been missed (the
   * connection was lost: it is opened again), `onListening(true)` when listening (again).
   * Returns the stop.
   */
  listen(channel: string, onMessage: (payload: string) => void, onListening: (listening: boolean) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
