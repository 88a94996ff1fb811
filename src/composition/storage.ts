/**
 * Storage: the primary database and its migrations, the read replicas, the Store over them, and
 * the live write path's own store.
 */
import type { Config } from '../config';
import { migrate, MIGRATIONS_DIR } from '../db/migrator';
import { openDatabase } from '../db/open-database';
import { ReplicaRouter } from '../db/replica-router';
import { Store } from '../db/store';
import { DependencyState, type DependencyEvent } from '../domain/dependency-state';
import { INGEST_POOL_SIZE } from '../services/ingest/live-writer';
import type { OpenOptions } from '../composition';

export interface Storage {
  store: Store;
  /** The live write path's store: a pool of its own on PostgreSQL, `store` itself on PGlite. */
  ingestStore: Store;
  /** Present when the data reads have replicas (DATABASE_REPLICA_URLS). */
  replicas: ReplicaRouter | undefined;
  /** The ingest store, then the store (its replica pools, then the database). */
  close(): Promise<void>;
}

export type StorageOptions = Pick<OpenOptions, 'dataDir' | 'migrate' | 'readReplicas' | 'bulkLoad'>;

export async function openStorage(config: Config, opts: StorageOptions, onOutage: (e: DependencyEvent) => void): Promise<Storage> {
  // One view of the database's reachability for both pools: an outage is logged once.
  const databaseHealth = new DependencyState('database', onOutage);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    dataDir: opts.dataDir ?? config.dataDir,
    health: databaseHealth,
    bulkLoad: opts.bulkLoad,
    fromTemplate: opts.migrate !== false,
  });
  try {
    if (opts.migrate !== false) await migrate(db, MIGRATIONS_DIR, config.databaseEngine);
  } catch (err) {
    await db.close();
    throw err;
  }
  // Read replicas: pools of their own and a poll of their positions (src/db/replica-router.ts);
  // only the read services get them, through store.routed.
  const replicas =
    db.kind === 'postgres' && config.databaseUrl && config.databaseReplicaUrls.length && opts.readReplicas !== false
      ? new ReplicaRouter(db, {
          primaryUrl: config.databaseUrl,
          primaryLocator: db.locator,
          urls: config.databaseReplicaUrls,
          maxLagMs: config.replicaMaxLagMs,
          poolSize: config.databasePoolSize,
          connectTimeoutMs: config.databaseConnectTimeoutMs,
          queryTimeoutMs: config.databaseQueryTimeoutMs,
        })
      : undefined;
  replicas?.start();
  const store = new Store(db, replicas, config.databaseEngine);
  // Ingestion on PostgreSQL has a pool of its own (pg connects on first use: nothing is opened
  // where nothing ingests): an API burst never delays live data, and ingestion never takes the
  // API's connections. PGlite has one connection either way.
  const ingestStore =
    db.kind === 'postgres'
      ? new Store(
          await openDatabase({
            databaseUrl: config.databaseUrl,
            poolSize: INGEST_POOL_SIZE,
            connectTimeoutMs: config.databaseConnectTimeoutMs,
            queryTimeoutMs: config.databaseQueryTimeoutMs,
            dataDir: 'memory',
            health: databaseHealth,
            locator: db.locator,
          }),
          undefined,
          config.databaseEngine,
        )
      : store;
  return {
    store,
    ingestStore,
    replicas,
    async close() {
      if (ingestStore !== store) await ingestStore.close();
      await store.close();
    },
  };
}
