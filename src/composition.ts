/**
 * The composition root: the only module that knows every layer. The server and the `mds`
 * CLI both build their services here, so they run the same code over the same storage.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import type { Database } from './db/database';
import { migrate } from './db/migrator';
import { openDatabase } from './db/open-database';
import { ComputeService } from './services/compute.service';
import { DemoSeedService } from './services/demo-seed.service';
import { Exchanges } from './services/exchanges';
import { HealthService } from './services/health.service';
import { ImportService } from './services/import.service';
import { KeysService } from './services/keys.service';

export const VERSION: string = (() => {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string;
    } catch {
      // keep looking upward
    }
  }
  return '0.0.0';
})();

export interface Services {
  config: Config;
  db: Database;
  exchanges: Exchanges;
  importer: ImportService;
  compute: ComputeService;
  seeder: DemoSeedService;
  keys: KeysService;
  health: HealthService;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Override the PGlite location (tests use 'memory'). */
  dataDir?: string | 'memory';
  /** Apply pending migrations first (default true). */
  migrate?: boolean;
}

export async function openServices(config: Config, opts: OpenOptions = {}): Promise<Services> {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: opts.dataDir ?? config.dataDir,
  });
  try {
    if (opts.migrate !== false) await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const exchanges = new Exchanges(config.exchanges.perp, config.exchanges.spot);
  return {
    config,
    db,
    exchanges,
    importer: new ImportService(db, exchanges),
    compute: new ComputeService(db),
    seeder: new DemoSeedService(db, exchanges),
    keys: new KeysService(db),
    health: new HealthService(db, VERSION),
    close: () => db.close(),
  };
}
