/** The one factory that chooses the storage: PostgreSQL with DATABASE_URL, else embedded PGlite. */
import type { DependencyState } from '../domain/dependency-state';
import type { Database } from './database';
import { lockDataDir } from './datadir-lock';
import { createPgliteDatabase } from './pglite.database';
import { copyTemplate, templateTarball } from './pglite-template';
import { createPostgresDatabase } from './postgres.database';
import type { PrimaryLocator } from './primary-locator';

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  poolSize?: number;
  /** PostgreSQL only: DATABASE_CONNECT_TIMEOUT and DATABASE_QUERY_TIMEOUT (ms). */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  /** PGlite directory; `memory` keeps everything in memory (tests). */
  dataDir: string | 'memory';
  /** PostgreSQL: told of connection failures and successes (an outage logged once). */
  health?: DependencyState;
  /** PostgreSQL: share another database's choice of host (the pools of one server). */
  locator?: PrimaryLocator;
  /** PGlite: for a process that bulk-loads and exits (createPgliteDatabase). */
  bulkLoad?: boolean;
  /**
   * PGlite in memory: start from the build's migrated template when it is current, not from
   * initdb. Only for a caller that migrates to the latest schema next (the services).
   */
  fromTemplate?: boolean;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const db = createPostgresDatabase({
      url: opts.databaseUrl,
      poolSize: opts.poolSize ?? 10,
      connectionTimeoutMs: opts.connectTimeoutMs,
      queryTimeoutMs: opts.queryTimeoutMs,
      health: opts.health,
      locator: opts.locator,
    });
    // A multi-host URL: find the primary before the first connection (a failed search leaves the first host).
    if (!opts.locator && db.locator?.locates) await db.locator.search();
    return db;
  }
  if (opts.dataDir === 'memory') {
    const template = opts.fromTemplate ? await templateTarball() : null;
    return createPgliteDatabase(undefined, opts.bulkLoad, template ?? undefined);
  }
  const release = lockDataDir(opts.dataDir);
  try {
    await copyTemplate(opts.dataDir);
    const db = await createPgliteDatabase(opts.dataDir, opts.bulkLoad);
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
