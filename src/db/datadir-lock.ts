/**
 * PGlite's files belong to one process. A lock file in DATA_DIR holding the owner's pid keeps
 * a second process (an `mds` command while the server runs) from opening and corrupting them.
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take the lock or throw DataDirBusyError; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, '.mds.lock');
  // The pid is written to a private file first and linked into place: the lock appears
  // atomically with its content, so nobody can read it half-written.
  const mine = path.join(dataDir, `.mds.lock.${process.pid}`);
  writeFileSync(mine, String(process.pid));
  try {
    return take(file, mine, dataDir);
  } finally {
    rmSync(mine, { force: true });
  }
}

function take(file: string, mine: string, dataDir: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      linkSync(mine, file);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new DataDirBusyError(
          `DATA_DIR ${dataDir} is in use by process ${pid} (a running server?). ` +
            'Stop it first, or point this command at PostgreSQL with DATABASE_URL.',
        );
      }
      rmSync(file, { force: true }); // stale: its owner is gone
    }
  }
  throw new DataDirBusyError(`could not lock DATA_DIR ${dataDir}`);
}
