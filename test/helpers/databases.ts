/**
 * The databases a suite runs on, one case each: embedded PGlite in memory always, and a fresh
 * database on the PostgreSQL server when DATABASE_URL is set (skipped visibly otherwise, see
 * requirements.ts). Both get the real migrations when opened through the services. With
 * DATABASE_ENGINE set, the server is an engine cluster (docs/SCALING.md) and the migrations make
 * its layout: on Citus each fresh database gets the coordinator's workers.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openServices, type Services } from '../../src/composition';
import { testConfig } from './config';
import { serviceUrl } from './requirements';

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface DatabaseCase {
  name: 'pglite' | 'postgres';
  /** A fresh, empty database: null for PGlite (in memory), else a new database on the server. */
  create(): Promise<FreshDatabase | null>;
  /** The services over a fresh database of this case (dropped by cleanup). */
  open(): Promise<Services>;
  /** Drop the databases open() made. */
  cleanup(): Promise<void>;
}

export function databaseCases(): DatabaseCase[] {
  const server = serviceUrl('DATABASE_URL');
  const creators: Array<[DatabaseCase['name'], () => Promise<FreshDatabase | null>]> = [['pglite', async () => null]];
  if (server) creators.push(['postgres', () => freshPostgres(server)]);
  return creators.map(([name, create]) => {
    const drops: Array<() => Promise<void>> = [];
    return {
      name,
      create,
      async open() {
        const db = await create();
        if (!db) return openServices(testConfig(), { dataDir: 'memory' });
        drops.push(db.drop);
        return openServices(testConfig({ DATABASE_URL: db.url, DATABASE_ENGINE: process.env.DATABASE_ENGINE }));
      },
      cleanup: async () => {
        await Promise.all(drops.splice(0).map((d) => d()));
      },
    };
  });
}

/** Open the case's services before the suite and close them (and its database) after. */
export function useServices(kase: DatabaseCase): () => Services {
  let s: Services | undefined;
  beforeAll(async () => {
    s = await kase.open();
  });
  afterAll(async () => {
    await s?.close();
    await kase.cleanup();
  });
  return () => s!;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Create an empty database on the server of `serverUrl`; returns its URL and a dropper. */
export async function freshPostgres(serverUrl: string): Promise<FreshDatabase> {
  const name = `mds_t_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  if (process.env.DATABASE_ENGINE === 'citus') await joinCitusWorkers(serverUrl, url);
  return {
    url,
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Make the fresh database `url` a Citus cluster of the workers of `serverUrl`'s database (Citus
 * keeps its nodes per database; the coordinator propagates CREATE DATABASE to them, with
 * citus.enable_create_database_propagation as scripts/engine-cluster.sh sets it).
 */
export async function joinCitusWorkers(serverUrl: string, url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  let nodes: Array<{ host: string; port: number; coordinator: boolean }>;
  try {
    nodes = (await admin.query('SELECT nodename AS host, nodeport AS port, groupid = 0 AS coordinator FROM pg_dist_node ORDER BY nodeid')).rows;
  } finally {
    await admin.end();
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    if ((await c.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).rowCount) return; // joined already
    await c.query('CREATE EXTENSION citus');
    for (const n of nodes) {
      if (n.coordinator) {
        await c.query('SELECT citus_set_coordinator_host($1, $2)', [n.host, n.port]);
        continue;
      }
      // The worker's copy of the database needs the extension before the coordinator adds it.
      const worker = new URL(url);
      worker.host = `${n.host}:${n.port}`;
      const w = new pg.Client({ connectionString: worker.toString() });
      await w.connect();
      await w.query('CREATE EXTENSION IF NOT EXISTS citus').finally(() => w.end());
      await c.query('SELECT citus_add_node($1, $2)', [n.host, n.port]);
    }
  } finally {
    await c.end();
  }
}
