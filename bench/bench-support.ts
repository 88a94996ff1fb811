/** Shared plumbing of the HTTP benchmarks: a fresh database, processes, autocannon runs. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = path.resolve(__dirname, '..', '..');
export const PG_SERVER = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function admin(sql: string, url = PG_SERVER): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A new database on the bench server; returns its URL and a dropper. */
export async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${process.env.BENCH_DB_PREFIX ?? 'mds_bench_'}${Date.now().toString(36)}`;
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(PG_SERVER);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Start a compiled script (stdout discarded, as a server's would be) and wait for `probe`; `root`: another checkout's build. */
export async function startProcess(script: string, env: Record<string, string>, probe: string, root = ROOT): Promise<Proc> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'dist', script)], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(url + probe).then((r) => r.status < 500, () => false);
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(url: string, connections: number, seconds: number, headers: Record<string, string> = {}): Promise<LoadResult> {
  const r = await autocannon({ url, connections, duration: seconds, headers });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

/** Resident memory of a process, MB (from /proc). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Run a benchmark's main, printing its error and exiting non-zero on failure. */
export function runBench(main: () => Promise<void>): void {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** Gateway settings for the HTTP benchmarks: PostgreSQL, Redis quotas, and a scale quota high
 * enough that every request is admitted while still running the quota script. */
export function gatewayEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'info',
    TIER_LIMITS: JSON.stringify({ scale: { minuteRequests: 1_000_000_000 } }),
  };
}

export const BENCH_USER = '00000000-0000-4000-8000-00000000be0c';

/** Least-squares slope of `ys` against their index (a trend per sample, e.g. MB per minute). */
export function slope(ys: number[]): number {
  const n = ys.length;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return den === 0 ? 0 : num / den;
}
