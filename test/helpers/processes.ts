/**
 * Real processes for multi-instance and fault tests: compiled gateway processes and `mds`
 * commands (dist/, built by `npm test` before jest runs) and private Redis servers on spare
 * ports (never the machine's shared one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The repository's root, from test/helpers or from its compiled copy in dist/ (a benchmark's). */
const ROOT = (() => {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();
const SERVER_JS = path.join(ROOT, 'dist', 'src', 'server.js');
/** What `npm start` runs: the built server, a first embedded start's seed begun before it loads. */
export const START_JS = path.join(ROOT, 'scripts', 'start.js');

export interface GatewayProcess {
  url: string;
  output(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
  exited(): Promise<number | null>;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));
}

/** Start `node dist/src/server.js` (or `script`) with `env`; resolves once it prints its URL (within `timeoutMs`). */
export async function startGateway(env: Record<string, string>, timeoutMs = 60_000, script = SERVER_JS): Promise<GatewayProcess> {
  if (!existsSync(SERVER_JS)) throw new Error(`${SERVER_JS} is missing: run npm run build (npm test does)`);
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), timeoutMs);
    child.stdout!.on('data', () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      return exited(child);
    },
    kill: (signal) => void child.kill(signal),
    exited: () => exited(child),
  };
}

const MDS_JS = path.join(ROOT, 'bin', 'mds.js');

export interface MdsRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface MdsProcess {
  readonly pid: number;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** Resolves with what was printed once `pattern` is in the output (rejects if the process exits first). */
  printed(pattern: RegExp, withinMs?: number): Promise<string>;
  kill(signal: NodeJS.Signals): void;
  exited(): Promise<MdsRun>;
}

/** Start the compiled `mds` command (bin/mds.js over dist/) with `args` and `env`, to watch, signal or kill. */
export function spawnMds(args: string[], env: Record<string, string>): MdsProcess {
  if (!existsSync(path.join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('dist/src/cli.js is missing: run npm run build (npm test does)');
  const child = spawn(process.execPath, [MDS_JS, ...args], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let both = '';
  child.stdout!.on('data', (d) => ((stdout += d), (both += d)));
  child.stderr!.on('data', (d) => ((stderr += d), (both += d)));
  const done = exited(child).then((code) => ({ code, stdout, stderr }));
  return {
    pid: child.pid!,
    output: () => both,
    printed: (pattern, withinMs = 30_000) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`not printed within ${withinMs} ms: ${pattern}\n${both}`)), withinMs);
        const check = () => (pattern.test(both) ? finish() : undefined);
        const finish = (err?: Error) => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          if (err) reject(err);
          else resolve(both);
        };
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        void done.then(() => finish(pattern.test(both) ? undefined : new Error(`exited before printing ${pattern}:\n${both}`)));
        check();
      }),
    kill: (signal) => void child.kill(signal),
    exited: () => done,
  };
}

/** Run the compiled `mds` command with `args` and `env`; resolves when it exits (killed after `timeoutMs`). */
export async function runMds(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<MdsRun> {
  const p = spawnMds(args, env);
  const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  try {
    return await p.exited();
  } finally {
    clearTimeout(timer);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server of our own on a spare port, to stop and start at will. */
export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const ready = () =>
    new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 10_000;
      const attempt = () => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.end();
          resolve();
        });
        s.on('error', () => (Date.now() > deadline ? reject(new Error('redis did not start')) : setTimeout(attempt, 50)));
      };
      attempt();
    });
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      await ready();
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
    },
  };
}
