/**
 * A private PostgreSQL primary and its streaming standby on spare ports, for the read-replica
 * tests: never the machine's own cluster. initdb refuses root, so as root the binaries run as the
 * postgres user (`runuser -u postgres`), the data under a temporary directory it owns, removed by
 * `destroy()`. The primary: wal_level=replica, durability off (a test cluster); the standby:
 * `pg_basebackup -R`, hot_standby on. Either side can be stopped, killed (SIGKILL to the
 * postmaster and its children, as a crash) and started again.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes';
import { pollUntil } from './wait';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  start(): Promise<void>;
  /** A fast shutdown (pg_ctl -m fast). */
  stop(): Promise<void>;
  /** SIGKILL to the postmaster and every process it started: a crash. */
  kill(): Promise<void>;
  /** One statement on a connection of its own. */
  query<R extends object = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

export interface PostgresPair {
  primary: PrivatePostgres;
  standby: PrivatePostgres;
  /** Until the standby has replayed everything the primary has written so far. */
  caughtUp(withinMs?: number): Promise<void>;
  /** Stop both and remove their directories. */
  destroy(): Promise<void>;
}

/** Run a PostgreSQL binary as the postgres user (as ourselves when not root). */
async function asPostgres(bin: string, args: string[]): Promise<string> {
  const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const { stdout } = await run(cmd, argv, { timeout: 60_000 });
  return stdout;
}

async function query<R extends object>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as R[];
  } finally {
    await c.end();
  }
}

function server(bin: string, dir: string, port: number): PrivatePostgres {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pgCtl = path.join(bin, 'pg_ctl');
  return {
    url,
    port,
    async start() {
      await asPostgres(pgCtl, ['-D', dir, '-l', `${dir}.log`, '-w', '-t', '60', 'start']);
    },
    async stop() {
      await asPostgres(pgCtl, ['-D', dir, '-m', 'fast', '-w', 'stop']);
    },
    async kill() {
      let pid: number;
      try {
        pid = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      } catch {
        return; // not running
      }
      const children = (() => {
        try {
          return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        } catch {
          return [];
        }
      })();
      for (const p of [pid, ...children]) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      const alive = (p: number) => {
        try {
          process.kill(p, 0);
          return true;
        } catch {
          return false;
        }
      };
      await pollUntil(async () => [pid, ...children].some(alive), (a) => !a, { withinMs: 10_000, everyMs: 20 });
    },
    query: (text, params) => query(url, text, params),
  };
}

/** A primary and its streaming standby, both started. */
export async function privatePostgresPair(bin: string): Promise<PostgresPair> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mds-pgpair-'));
  if (process.getuid?.() === 0) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    chownSync(root, Number(uid.stdout), Number(gid.stdout));
  }
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primaryDir = path.join(root, 'primary');
  const standbyDir = path.join(root, 'standby');
  await asPostgres(path.join(bin, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  await appendFile(
    path.join(primaryDir, 'postgresql.conf'),
    [
      `port = ${primaryPort}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${root}'`,
      'wal_level = replica',
      'max_wal_senders = 4',
      // Enough WAL kept for a killed standby to catch up by streaming when it restarts.
      'wal_keep_size = 256MB',
      'hot_standby = on',
      'hot_standby_feedback = on',
      'max_connections = 60',
      'shared_buffers = 32MB',
      'fsync = off',
      'full_page_writes = off',
      '',
    ].join('\n'),
  );
  const primary = server(bin, primaryDir, primaryPort);
  const standby = server(bin, standbyDir, standbyPort);
  await primary.start();
  try {
    // -R writes primary_conninfo and standby.signal; the copy's own port comes after.
    await asPostgres(path.join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    await appendFile(path.join(standbyDir, 'postgresql.conf'), `port = ${standbyPort}\n`);
    await standby.start();
  } catch (err) {
    await primary.kill();
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    primary,
    standby,
    async caughtUp(withinMs = 10_000) {
      const [{ lsn }] = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      const done = await pollUntil(
        async () => (await standby.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]))[0].ok,
        (ok) => ok,
        { withinMs, everyMs: 20 },
      );
      if (!done) throw new Error(`the standby did not replay ${lsn} within ${withinMs} ms`);
    },
    async destroy() {
      await Promise.all([standby.kill(), primary.kill()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
