/**
 * A new embedded DATA_DIR starts as a copy of a migrated, empty database made by the build
 * (`npm run build`: dist/pglite-template): PGlite's initdb runs in WebAssembly and took longer
 * than copying its result. The template is used only when it was made by this PGlite from these
 * migrations (its stamp); otherwise PGlite creates the database as before.
 */
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { migrate, readMigrations } from './migrator';
import { createPgliteDatabase } from './pglite.database';

/** dist/pglite-template beside dist/src (from src/db in a checkout: absent, never used). */
export const TEMPLATE_DIR = path.resolve(__dirname, '..', '..', 'pglite-template');
export const STAMP = '.mds-template';

/** What the template was made from: this PGlite's version and the migrations' names and checksums. */
export async function templateStamp(): Promise<string> {
  // Its package.json is not exported: read beside the entry point (dist/index.cjs).
  const pkg = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const pglite = (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  const migrations = (await readMigrations()).map((m) => `${m.name} ${m.checksum}`);
  return JSON.stringify({ pglite, migrations });
}

/** Make the template (the build's step); nothing to do when the one there is current. */
export async function buildTemplate(dir = TEMPLATE_DIR): Promise<boolean> {
  const want = await templateStamp();
  if (existsSync(path.join(dir, STAMP)) && readFileSync(path.join(dir, STAMP), 'utf8') === want) return false;
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const db = await createPgliteDatabase(tmp);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  writeFileSync(path.join(tmp, STAMP), want);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return true;
}

/** Fill a DATA_DIR holding no database yet from the template when it is current; whether it did. */
export async function copyTemplate(dataDir: string, dir = TEMPLATE_DIR): Promise<boolean> {
  if (existsSync(path.join(dataDir, 'PG_VERSION')) || !existsSync(path.join(dir, STAMP))) return false;
  if (readFileSync(path.join(dir, STAMP), 'utf8') !== (await templateStamp())) return false;
  // PG_VERSION last: a copy cut short is not taken for a database.
  const last = [path.join(dir, STAMP), path.join(dir, 'PG_VERSION')];
  cpSync(dir, dataDir, { recursive: true, filter: (src) => !last.includes(src) });
  cpSync(path.join(dir, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
  return true;
}
