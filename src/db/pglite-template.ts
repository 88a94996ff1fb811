/**
 * A new embedded DATA_DIR starts as a copy of a migrated, empty database made by the build
 * (`npm run build`: dist/pglite-template): PGlite's initdb runs in WebAssembly and took longer
 * than copying its result. A database in memory (tests, and a process that opens one) starts
 * from the same database as a tar PGlite loads, for the same reason. The template is used only
 * when it was made by this PGlite from these migrations (its stamp); otherwise PGlite creates the
 * database as before.
 */
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate, readMigrations } from './migrator';
import { createPgliteDatabase } from './pglite.database';

/**
 * dist/pglite-template: beside dist/src in a build; the checkout's build when run from src/db
 * (the tests), where the stamp keeps a build older than the migrations out.
 */
const ROOT = path.resolve(__dirname, '..', '..');
export const TEMPLATE_DIR = path.join(path.basename(ROOT) === 'dist' ? ROOT : path.join(ROOT, 'dist'), 'pglite-template');
export const STAMP = '.mds-template';
/** The same database as PGlite's dump (an uncompressed tar: it loads in a fraction of a gzipped one's time), for memory. */
export const TARBALL = '.mds-memory.tar';

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
  if (existsSync(path.join(dir, TARBALL)) && (await isCurrent(dir))) return false;
  const want = await templateStamp();
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const db = await createPgliteDatabase(tmp);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  // Dumped from the closed database (shut down cleanly: nothing to recover when it loads).
  const closed = await PGlite.create(tmp);
  try {
    writeFileSync(path.join(tmp, TARBALL), Buffer.from(await (await closed.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await closed.close();
  }
  writeFileSync(path.join(tmp, STAMP), want);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return true;
}

/** Fill a DATA_DIR holding no database yet from the template when it is current; whether it did. */
export async function copyTemplate(dataDir: string, dir = TEMPLATE_DIR): Promise<boolean> {
  if (existsSync(path.join(dataDir, 'PG_VERSION')) || !(await isCurrent(dir))) return false;
  // PG_VERSION last: a copy cut short is not taken for a database.
  const last = [path.join(dir, STAMP), path.join(dir, 'PG_VERSION'), path.join(dir, TARBALL)];
  cpSync(dir, dataDir, { recursive: true, filter: (src) => !last.includes(src) });
  cpSync(path.join(dir, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
  return true;
}

/** Whether the template in `dir` was made by this PGlite from these migrations (its stamp). */
async function isCurrent(dir: string): Promise<boolean> {
  const stamp = path.join(dir, STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === (await templateStamp());
}

/** The template's tar for a database in memory when it is current, else null (read each time: 40 MB is not kept). */
export async function templateTarball(dir = TEMPLATE_DIR): Promise<Blob | null> {
  const tar = path.join(dir, TARBALL);
  return existsSync(tar) && (await isCurrent(dir)) ? new Blob([readFileSync(tar)]) : null;
}
