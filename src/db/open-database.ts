/** The one factory that chooses the storage: PostgreSQL with DATABASE_URL, else embedded PGlite. */
import type { Database } from './database';
import { lockDataDir } from './datadir-lock';
import { createPgliteDatabase } from './pglite.database';
import { createPostgresDatabase } from './postgres.database';

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  poolSize?: number;
  /** PostgreSQL only: DATABASE_CONNECT_TIMEOUT and DATABASE_QUERY_TIMEOUT (ms). */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  /** PGlite directory; `memory` keeps everything in memory (tests). */
  dataDir: string | 'memory';
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    return createPostgresDatabase({
      url: opts.databaseUrl,
      poolSize: opts.poolSize ?? 10,
      connectionTimeoutMs: opts.connectTimeoutMs,
      queryTimeoutMs: opts.queryTimeoutMs,
    });
  }
  if (opts.dataDir === 'memory') return createPgliteDatabase(undefined);
  const release = lockDataDir(opts.dataDir);
  try {
    const db = await createPgliteDatabase(opts.dataDir);
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
