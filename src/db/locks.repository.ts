/**
 * PostgreSQL advisory locks, the one table of their keys. Session locks coordinate processes
 * that share a database (several servers, `mds` commands beside them): migrations, the demo
 * seed, the quality job, ingestion, and imports and ingested batches of one symbol. On PGlite there is one process and one
 * connection, so they always succeed at once.
 */
import type { Database, SqlSession } from './database';

export const LOCK_KEYS = {
  /** Migrations: one runner at a time. */
  migration: 7_734_211,
  /** The quality job: one instance at a time; the others skip their run. */
  qualityJob: 7_734_212,
  /** Seeding the demo data at start-up: replicas starting together seed once. */
  demoSeed: 7_734_213,
  /** Ingestion from the venues: exactly one process ingests; the others wait to take over. */
  ingestLeader: 7_734_215,
  /** The partition job (periods ahead, retention): one instance at a time; the others skip their run. */
  partitionJob: 7_734_216,
} as const;

/** Class of the per-symbol locks (the object id is hashtext(symbol)). */
const SYMBOL_LOCK_CLASS = 7_734_214;
/** Class of the per-series locks of live writes (the object id is the series id). */
const SERIES_LOCK_CLASS = 7_734_217;

export type LockName = keyof typeof LOCK_KEYS;

/** Take the lock of one symbol (the one `Locks.withSymbolLock` holds) until `tx`'s transaction ends. */
export async function lockSymbolInTransaction(tx: SqlSession, symbol: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SYMBOL_LOCK_CLASS, symbol], { prepare: true });
}

/**
 * Take one series' lock and its symbol's lock shared until `tx`'s transaction ends: writes of
 * the symbol's other series that read only their own rows run beside it, while the symbol's
 * exclusive holders (imports, writes that read several series) wait, and are waited for.
 */
export async function lockSeriesInTransaction(tx: SqlSession, symbol: string, seriesId: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock_shared($1, hashtext($2)), pg_advisory_xact_lock($3, $4)', [SYMBOL_LOCK_CLASS, symbol, SERIES_LOCK_CLASS, seriesId], { prepare: true });
}

/** Run `fn` while `session` holds lock `key` (waiting for it). */
export async function holdingLock<T>(session: SqlSession, key: number, fn: () => Promise<T>): Promise<T> {
  await session.query('SELECT pg_advisory_lock($1)', [key]);
  try {
    return await fn();
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
  }
}

export class Locks {
  constructor(private readonly db: Database) {}

  /** Run `fn` holding the named lock, waiting for another holder to finish first. */
  withLock<T>(name: LockName, fn: () => Promise<T>): Promise<T> {
    return this.db.session((s) => holdingLock(s, LOCK_KEYS[name], fn));
  }

  /** Run `fn` holding the named lock; null at once, without running it, when another holds it. */
  tryWithLock<T>(name: LockName, fn: () => Promise<T>): Promise<T | null> {
    return this.tryWithLockOn(name, () => fn());
  }

  private tryWithLockOn<T>(name: LockName, fn: (s: SqlSession) => Promise<T>): Promise<T | null> {
    return this.db.session(async (s) => {
      const [{ locked }] = await s.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOCK_KEYS[name]]);
      if (!locked) return null;
      try {
        return await fn(s);
      } finally {
        await s.query('SELECT pg_advisory_unlock($1)', [LOCK_KEYS[name]]).catch(() => undefined);
      }
    });
  }

  /**
   * Hold the named lock for as long as `fn` runs, on a connection of its own; null at once when
   * another holds it. `fn` gets `alive`, which fails once that connection is gone (the lock with
   * it): the holder checks it every few seconds and stops its work when it fails.
   */
  tryHold<T>(name: LockName, fn: (alive: () => Promise<void>) => Promise<T>): Promise<T | null> {
    return this.tryWithLockOn(name, (s) => fn(async () => void (await s.query('SELECT 1'))));
  }

  /**
   * Run `fn` holding the lock of one symbol (both its venues), waiting for it: work that reads
   * one venue to derive values of the other never sees half of a concurrent change.
   */
  withSymbolLock<T>(symbol: string, fn: () => Promise<T>): Promise<T> {
    return this.db.session(async (s) => {
      await s.query('SELECT pg_advisory_lock($1, hashtext($2))', [SYMBOL_LOCK_CLASS, symbol]);
      try {
        return await fn();
      } finally {
        await s.query('SELECT pg_advisory_unlock($1, hashtext($2))', [SYMBOL_LOCK_CLASS, symbol]).catch(() => undefined);
      }
    });
  }
}
