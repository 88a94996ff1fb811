/**
 * PGlite's files belong to one process. A lock file in DATA_DIR holding the owner's pid keeps
 * a second process (an `mds` command while the server runs) from opening and corrupting them.
 */
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
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
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
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
