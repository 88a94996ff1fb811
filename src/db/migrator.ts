/**
 * Applies prisma/migrations/<name>/migration.sql in name order, recording each in
 * `_prisma_migrations` the way `prisma migrate deploy` does, so the Prisma CLI (where its
 * schema engine is available) sees the same history. Safe to run twice and from several
 * processes at once: a session advisory lock serializes runners, and applied names are skipped.
 * Then, under the same lock, the layout of DATABASE_ENGINE (engine-layout.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from './database';
import { applyEngineLayout, type DatabaseEngine } from './engine-layout';
import { holdingLock, LOCK_KEYS } from './locks.repository';

/** prisma/migrations of this checkout, found upward from here (src/db or dist/src/db). */
export const MIGRATIONS_DIR = findUp(path.join('prisma', 'migrations'));

function findUp(rel: string): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, rel);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`cannot find ${rel} above ${__dirname}`);
  }
}

const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Apply pending migrations, then the layout of `engine`; returns the names applied by this call. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR, engine: DatabaseEngine = 'postgres'): Promise<string[]> {
  const files = await readMigrations(dir);
  return db.session((s) =>
    holdingLock(s, LOCK_KEYS.migration, async () => {
      await s.query(CREATE_TABLE);
      const done = await s.query<{ migration_name: string; checksum: string }>(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      const applied = new Map(done.map((r) => [r.migration_name, r.checksum]));
      const ran: string[] = [];
      for (const f of files) {
        const prior = applied.get(f.name);
        if (prior !== undefined) {
          if (prior !== f.checksum) throw new Error(`migration ${f.name} was modified after it was applied`);
          continue;
        }
        await s.query('BEGIN');
        try {
          await s.exec(f.sql);
          await s.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
             VALUES ($1, $2, $3, now(), now(), 1)`,
            [randomUUID(), f.checksum, f.name],
          );
          await s.query('COMMIT');
        } catch (err) {
          await s.query('ROLLBACK').catch(() => undefined);
          throw new Error(`migration ${f.name} failed: ${(err as Error).message}`);
        }
        ran.push(f.name);
      }
      await applyEngineLayout(s, engine);
      return ran;
    }),
  );
}
