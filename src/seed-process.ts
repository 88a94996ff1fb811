/**
 * The embedded default's first start seeds its demo data in a child process: PGlite's memory
 * (its WebAssembly heap) only grows, so a server that seeded in-process would carry what the
 * seed's writes took for its whole life. The child creates DATA_DIR, migrates, seeds and exits;
 * the server then opens the seeded files. The child also scores the data (the quality job), so
 * the server's first runs of its jobs wait an interval: writers ensure their own partitions.
 * Run as a script, this file is that child.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config } from './config';
import { createLogger, type Logger } from './logger';
import type { SeedSummary } from './services/demo/demo-seed.service';

type Seeded = { summary: SeedSummary | null; durationMs: number };
/** What the child reports before it exits. */
type ChildMessage = Seeded | { error: string };

/** The child runs this file with node: only from a build (dist/), not from TypeScript sources. */
export const CHILD_RUNNABLE = __filename.endsWith('.js');

/**
 * Whether this start seeds in a child: the embedded database, seeding on, and DATA_DIR holding
 * no database yet (PGlite writes PG_VERSION when it creates one).
 */
export function seedsInChild(config: Pick<Config, 'databaseUrl' | 'seedDemo'>, dataDir: string): boolean {
  return !config.databaseUrl && config.seedDemo && dataDir !== 'memory' && !existsSync(path.join(dataDir, 'PG_VERSION'));
}

let early: { dataDir: string; seeded: Promise<Seeded> } | undefined;

/**
 * `npm start` (scripts/start.js) calls this before it loads the server's modules, so a first
 * embedded start's child seeds meanwhile. Nothing when this start does not seed in a child or
 * its configuration is invalid (the server reports that).
 */
export function seedEarly(): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch {
    return;
  }
  const seeded = childSeed(config, config.dataDir, createLogger(config.logLevel));
  if (seeded === null) return;
  seeded.catch(() => undefined); // awaited by the server, which reports a failure
  early = { dataDir: config.dataDir, seeded };
}

/** The seed of this start in a child process when it seeds in one (seedsInChild), else null. */
export function childSeed(config: Pick<Config, 'databaseUrl' | 'seedDemo'>, dataDir: string, logger: Logger): Promise<Seeded> | null {
  return CHILD_RUNNABLE && seedsInChild(config, dataDir) ? seedInChild(logger) : null;
}

/** The seed seedEarly started for `dataDir` (once), or null. */
export function takeEarlySeed(dataDir: string): Promise<Seeded> | null {
  const taken = early?.dataDir === dataDir ? early.seeded : null;
  early = undefined;
  return taken;
}

/** Create and seed DATA_DIR in a child process; its summary, or its failure as an Error. */
export function seedInChild(logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<Seeded> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let reply: ChildMessage | undefined;
    child.on('message', (m: ChildMessage) => (reply = m));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (reply && 'summary' in reply && code === 0) return resolve(reply);
      const why = reply && 'error' in reply ? reply.error : `exited with ${signal ?? `code ${code}`}`;
      logger.error({ code, signal }, 'demo seed process failed');
      reject(new Error(`seeding the demo data failed: ${why}`));
    });
  });
}

/** The child: migrate and seed DATA_DIR, report to the parent, exit. */
async function childMain(): Promise<void> {
  // Without its server there is no one to seed for (and the lock on DATA_DIR must go).
  process.once('disconnect', () => process.exit(1));
  const send = (m: ChildMessage) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
  try {
    const config = loadConfig();
    const logger = createLogger(config.logLevel);
    // Here, not at the top: the parent's side of this file (seedEarly) loads little. The
    // worker thread first, so that its modules load while the database opens.
    const rows = (await import('./services/demo/demo-seed.worker')).seedWorker();
    const { openServices } = await import('./composition');
    const services = await openServices(config, { logger, readReplicas: false, bulkLoad: true });
    try {
      const started = Date.now();
      const seeding = () => logger.info('empty database: seeding demo data (SEED_DEMO=false to skip)');
      const summary = await services.seeder.seedIfEmpty(services.clock(), seeding, rows);
      // The quality job's first run, done here over what was written: the server starts idle.
      if (summary) await services.quality.runExclusive(services.clock());
      await send({ summary, durationMs: Date.now() - started });
    } finally {
      await rows.close();
      await services.close();
    }
    process.exit(0);
  } catch (err) {
    await send({ error: (err as Error).message });
    process.exit(1);
  }
}

if (require.main === module && process.send) void childMain();
