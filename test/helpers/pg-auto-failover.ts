/**
 * A private pg_auto_failover formation (a monitor and two nodes) on spare ports, as the postgres
 * user, its state under a temporary directory: never the machine's own cluster. The monitor's
 * health checks are tuned to a few seconds; a node is lost by SIGKILL to its pg_autoctl process
 * group (killing only the postmaster lets the keeper restart it).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes';
import { pollUntil } from './wait';

const run = promisify(execFile);

/** pg_autoctl on PATH (Debian's postgresql-15-auto-failover), or undefined. */
export function pgAutoctl(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(path.join(dir, 'pg_autoctl'))) return path.join(dir, 'pg_autoctl');
  return undefined;
}

export interface FormationNode {
  name: string;
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<db>: this node only. */
  url: string;
}

export interface Formation {
  /** The formation's multi-host URL as pg_auto_failover hands it out, with user and database. */
  url: string;
  nodes: FormationNode[];
  /** The node that accepts writes now (null: none). */
  primary(): Promise<FormationNode | null>;
  /** SIGKILL to the node's pg_autoctl process group (keeper and postgres); resolves at the kill. */
  kill(node: FormationNode): Promise<number>;
  /** Start a killed node's keeper again (it rejoins as a secondary). */
  restart(node: FormationNode): Promise<void>;
  /** Until `node` accepts writes; resolves with when it was first seen writable (ms). */
  promoted(node: FormationNode, withinMs?: number): Promise<number>;
  /** Until every node reports a settled state (primary and secondary). */
  settled(withinMs?: number): Promise<void>;
  destroy(): Promise<void>;
}

/** The monitor's health checks, in ms: a lost primary is seen and replaced within a few seconds. */
const MONITOR_TUNING = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 3000,
  'pgautofailover.primary_demote_timeout': 3000,
};

async function query<R extends object>(url: string, text: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  c.on('error', () => undefined);
  await c.connect();
  try {
    return (await c.query(text)).rows as R[];
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** A monitor and `count` nodes, started, settled, with database `database` created on the primary. */
export async function startFormation(autoctl: string, pgBin: string, database = 'mds', count = 2): Promise<Formation> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mds-pgaf-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    chownSync(root, Number(uid.stdout), Number(gid.stdout));
  }
  const env = [`XDG_CONFIG_HOME=${root}/config`, `XDG_DATA_HOME=${root}/share`, `PATH=${pgBin}:${process.env.PATH}`, `PGCTL=${pgBin}/pg_ctl`];
  const command = (args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', 'env', ...env, autoctl, ...args]] : ['env', [...env, autoctl, ...args]]);
  const autoctlRun = async (args: string[]) => {
    const [cmd, argv] = command(args);
    await run(cmd, argv, { timeout: 120_000, cwd: root });
  };
  const keepers = new Map<string, ChildProcess>();
  const keep = (name: string, pgdata: string) => {
    const [cmd, argv] = command(['run', '--pgdata', pgdata]);
    // A process group of its own: the keeper, its services and postgres die together on kill(-pgid).
    const child = spawn(cmd, argv, { cwd: root, detached: true, stdio: 'ignore' });
    keepers.set(name, child);
  };

  const monitorPort = await freePort();
  await autoctlRun(['create', 'monitor', '--pgdata', `${root}/monitor`, '--pgport', String(monitorPort), '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl']);
  keep('monitor', `${root}/monitor`);
  const monitorSql = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
  await pollUntil(() => query(monitorSql, 'SELECT 1').then(() => true, () => false), (ok) => ok, { withinMs: 30_000, everyMs: 200 });
  for (const [name, value] of Object.entries(MONITOR_TUNING)) await query(monitorSql, `ALTER SYSTEM SET ${name} = ${value}`);
  await query(monitorSql, 'SELECT pg_reload_conf()');

  const nodes: FormationNode[] = [];
  for (let i = 1; i <= count; i++) {
    const port = await freePort();
    const name = `node${i}`;
    await autoctlRun(['create', 'postgres', '--pgdata', `${root}/${name}`, '--pgport', String(port), '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--name', name, '--monitor', `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`]);
    keep(name, `${root}/${name}`);
    nodes.push({ name, port, url: `postgres://postgres@127.0.0.1:${port}/${database}` });
    // The first node must be the primary before the second joins as its secondary.
    if (i === 1) await pollUntil(() => query<{ ok: boolean }>(`postgres://postgres@127.0.0.1:${port}/postgres`, 'SELECT NOT pg_is_in_recovery() AS ok').then((r) => r[0]?.ok === true, () => false), (ok) => ok, { withinMs: 60_000, everyMs: 200 });
  }

  const states = () => query<{ nodename: string; reportedstate: string; goalstate: string }>(monitorSql, 'SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid');
  const settled = async (withinMs = 90_000) => {
    const done = (s: Array<{ reportedstate: string; goalstate: string }>) => s.length === count && s.every((n) => n.reportedstate === n.goalstate && ['primary', 'secondary'].includes(n.reportedstate));
    if (!done(await pollUntil(() => states().catch(() => []), done, { withinMs, everyMs: 250 }))) throw new Error(`the formation did not settle: ${JSON.stringify(await states().catch(() => []))}`);
  };
  await settled();
  // As target_session_attrs=read-write judges it: a promoted node refuses writes until the monitor lets it.
  const writable = async (node: FormationNode) => query<{ ok: boolean }>(node.url.replace(/\/[^/]*$/, '/postgres'), "SELECT current_setting('transaction_read_only') = 'off' AS ok").then((r) => r[0].ok, () => false);
  const first = nodes.find(() => true)!;
  await query(first.url.replace(/\/[^/]*$/, '/postgres'), `CREATE DATABASE ${database}`);

  return {
    url: `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/${database}?target_session_attrs=read-write&sslmode=prefer`,
    nodes,
    async primary() {
      for (const n of nodes) if (await writable(n)) return n;
      return null;
    },
    async kill(node) {
      const keeper = keepers.get(node.name)!;
      const at = Date.now();
      process.kill(-keeper.pid!, 'SIGKILL');
      await new Promise((r) => (keeper.exitCode !== null || keeper.signalCode !== null ? r(null) : keeper.once('exit', r)));
      return at;
    },
    async restart(node) {
      keep(node.name, `${root}/${node.name}`);
      await settled();
    },
    async promoted(node, withinMs = 60_000) {
      if (!(await pollUntil(() => writable(node), (w) => w, { withinMs, everyMs: 50 }))) throw new Error(`${node.name} was not promoted within ${withinMs} ms: ${JSON.stringify(await states().catch(() => []))}`);
      return Date.now();
    },
    settled,
    async destroy() {
      for (const k of keepers.values()) {
        try {
          process.kill(-k.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      // The killed keepers' servers exit on their own (a backend notices its postmaster died),
      // and may still be writing their data directories meanwhile: wait until no process works
      // in one (a PostgreSQL process's working directory is its data directory).
      const deadline = Date.now() + 15_000;
      while (workingIn(root) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** Whether a running process (a zombie no longer writes) has its working directory under `dir`. */
function workingIn(dir: string): boolean {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readlinkSync(`/proc/${pid}/cwd`).startsWith(`${dir}/`)) continue;
      if (readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z') return true;
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return false;
}
