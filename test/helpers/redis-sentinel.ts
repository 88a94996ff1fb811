/**
 * A private Redis Sentinel cluster for failover tests and benchmarks: a master, one replica and
 * three sentinels (`redis-server <conf> --sentinel`) on spare ports, child processes of this one,
 * with failure detection and failover timeouts cut short. `killMaster()` loses the master to a
 * SIGKILL and tells when the sentinels switch to the promoted replica; `restore()` starts the lost
 * node again as a replica, so one cluster serves several failovers; `silenceSentinels()` stops
 * every sentinel (SIGSTOP) until its resume is called. Never the machine's Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { freePort } from './processes';
import { pollUntil } from './wait';

export interface NodeAddress {
  host: string;
  port: number;
}

export interface Promotion {
  /** When the sentinels announced the new master (+switch-master), ms since the epoch. */
  at: number;
  master: NodeAddress;
}

export interface SentinelCluster {
  /** The sentinels as REDIS_SENTINELS lists them. */
  readonly sentinels: string;
  /** The name the sentinels monitor the master under (REDIS_SENTINEL_MASTER). */
  readonly masterName: string;
  /** The master the sentinels name now. */
  master(): Promise<NodeAddress>;
  /** SIGKILL the master; `promoted` settles when the sentinels switch to the replica (or rejects after `withinMs`). */
  killMaster(withinMs?: number): Promise<{ killedAt: number; promoted: Promise<Promotion> }>;
  /** An operator's failover (SENTINEL FAILOVER): the master is demoted to a replica of the one promoted. */
  failover(withinMs?: number): Promise<{ startedAt: number; promoted: Promise<Promotion> }>;
  /** Start the node `killMaster` lost again, as a replica of the new master, and wait until the sentinels count on it. */
  restore(): Promise<void>;
  /** SIGSTOP every sentinel: they accept connections but answer nothing until `resume()` (SIGCONT). */
  silenceSentinels(): { resume(): void };
  /** A client of one data node (the caller disconnects it). */
  client(node: NodeAddress): Redis;
  stop(): Promise<void>;
}

export interface SentinelClusterOptions {
  /** Sentinel's down-after-milliseconds: silence before a node counts as down. */
  downAfterMs?: number;
  failoverTimeoutMs?: number;
}

const HOST = '127.0.0.1';
const MASTER_NAME = 'mymaster';
const STARTUP_MS = 30_000;

/** Children still running in this process, killed if it exits without stopping its clusters. */
const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((c) => c.kill('SIGKILL')));

function start(args: string[]): ChildProcess {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  child.on('error', () => undefined); // no redis-server: the wait for the cluster says so
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** One short-lived connection for a few commands: no retries, no queue, bounded. */
async function ask<T>(port: number, run: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ host: HOST, port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1_000, commandTimeout: 2_000 });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await run(r);
  } finally {
    r.disconnect();
  }
}

/** A reply of flat field/value pairs (SENTINEL MASTER, SENTINEL REPLICAS) as an object. */
function fields(reply: unknown): Record<string, string> {
  const list = reply as string[];
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i]] = list[i + 1];
  return out;
}

/** Poll `check` until true; a failure names what was awaited. */
async function until(what: string, check: () => Promise<boolean>, withinMs = STARTUP_MS): Promise<void> {
  const ok = await pollUntil(() => check().catch(() => false), (v) => v, { withinMs, everyMs: 100 });
  if (!ok) throw new Error(`redis sentinel cluster: ${what} not within ${withinMs} ms`);
}

export async function startSentinelCluster(opts: SentinelClusterOptions = {}): Promise<SentinelCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-sentinel-'));
  const dataPorts = [await freePort(), await freePort()];
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  const nodes = new Map<number, ChildProcess>();
  const sentinels: ChildProcess[] = [];
  let lost: { port: number } | undefined;

  const startNode = (port: number, replicaOf?: NodeAddress) => {
    const args = ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, '--dbfilename', `dump-${port}.rdb`];
    // A replica syncs at once, not after the default wait for more replicas to share the transfer.
    args.push('--repl-diskless-sync-delay', '0', '--logfile', path.join(dir, `redis-${port}.log`));
    if (replicaOf) args.push('--replicaof', replicaOf.host, String(replicaOf.port));
    nodes.set(port, start(args));
  };
  const linkUp = (port: number) => ask(port, async (r) => /master_link_status:up/.test(await r.info('replication')));
  const masterSeen = (port: number) => ask(port, async (r) => fields(await r.call('SENTINEL', 'MASTER', MASTER_NAME)));

  /** Listen on every sentinel (any of them may announce it) for the next switch of master. */
  const switchAnnounced = async (withinMs: number): Promise<{ promoted: Promise<Promotion> }> => {
    const listeners = sentinelPorts.map((p) => new Redis({ host: HOST, port: p, retryStrategy: () => 100 }));
    listeners.forEach((l) => l.on('error', () => undefined));
    await Promise.all(listeners.map((l) => l.subscribe('+switch-master')));
    const promoted = new Promise<Promotion>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`redis sentinel cluster: no +switch-master within ${withinMs} ms`)), withinMs);
      const finish = (err: Error | null, p?: Promotion) => {
        clearTimeout(timer);
        listeners.forEach((l) => l.disconnect());
        if (err) reject(err);
        else resolve(p!);
      };
      for (const l of listeners) {
        // "<name> <old ip> <old port> <new ip> <new port>"
        l.on('message', (_channel: string, text: string) => {
          const [name, , , host, port] = text.split(' ');
          if (name === MASTER_NAME) finish(null, { at: Date.now(), master: { host, port: Number(port) } });
        });
      }
    });
    promoted.catch(() => undefined); // the caller may never await it
    return { promoted };
  };

  const cluster: SentinelCluster = {
    sentinels: sentinelPorts.map((p) => `${HOST}:${p}`).join(','),
    masterName: MASTER_NAME,

    async master() {
      const [host, port] = (await ask(sentinelPorts[0], (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME))) as [string, string];
      return { host, port: Number(port) };
    },

    async killMaster(withinMs = 30_000) {
      const old = await cluster.master();
      const child = nodes.get(old.port);
      if (!child) throw new Error(`redis sentinel cluster: the master ${old.port} is not one of its nodes`);
      const { promoted } = await switchAnnounced(withinMs);
      const killedAt = Date.now();
      await kill(child);
      nodes.delete(old.port);
      lost = { port: old.port };
      return { killedAt, promoted };
    },

    async failover(withinMs = 30_000) {
      const { promoted } = await switchAnnounced(withinMs);
      const startedAt = Date.now();
      await ask(sentinelPorts[0], (r) => r.call('SENTINEL', 'FAILOVER', MASTER_NAME));
      return { startedAt, promoted };
    },

    async restore() {
      if (!lost) return;
      const port = lost.port;
      lost = undefined;
      const master = await cluster.master();
      startNode(port, master);
      await until(`replica ${port} in sync`, () => linkUp(port));
      // Every sentinel counts it as a healthy replica again (not s_down, not disconnected).
      await until(`replica ${port} seen by the sentinels`, async () => {
        for (const s of sentinelPorts) {
          const replicas = ((await ask(s, (r) => r.call('SENTINEL', 'REPLICAS', MASTER_NAME))) as unknown[]).map(fields);
          const it = replicas.find((x) => Number(x.port) === port);
          if (!it || /s_down|o_down|disconnected/.test(it.flags)) return false;
        }
        return true;
      });
    },

    silenceSentinels() {
      sentinels.forEach((c) => c.kill('SIGSTOP'));
      return { resume: () => sentinels.forEach((c) => c.kill('SIGCONT')) };
    },

    client(node) {
      return new Redis({ host: node.host, port: node.port, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
    },

    async stop() {
      await Promise.all([...sentinels, ...nodes.values()].map(kill));
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    startNode(dataPorts[0]);
    startNode(dataPorts[1], { host: HOST, port: dataPorts[0] });
    await until('the replica in sync', () => linkUp(dataPorts[1]));
    // Each sentinel is told of the others and of the replica, rather than waiting to hear of them.
    const ids = sentinelPorts.map(() => randomBytes(20).toString('hex'));
    sentinelPorts.forEach((port, i) => {
      const conf = path.join(dir, `sentinel-${port}.conf`);
      const lines = [
        `port ${port}`,
        `bind ${HOST}`,
        `dir ${dir}`,
        `logfile ${path.join(dir, `sentinel-${port}.log`)}`,
        `sentinel myid ${ids[i]}`,
        `sentinel monitor ${MASTER_NAME} ${HOST} ${dataPorts[0]} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${opts.downAfterMs ?? 1_000}`,
        `sentinel failover-timeout ${MASTER_NAME} ${opts.failoverTimeoutMs ?? 3_000}`,
        `sentinel known-replica ${MASTER_NAME} ${HOST} ${dataPorts[1]}`,
        ...sentinelPorts.flatMap((other, j) => (j === i ? [] : [`sentinel known-sentinel ${MASTER_NAME} ${HOST} ${other} ${ids[j]}`])),
      ];
      writeFileSync(conf, lines.join('\n') + '\n');
      sentinels.push(start([conf, '--sentinel']));
    });
    // A failover needs a quorum that knows the replica and a majority that knows each other.
    await until('the sentinels to know the replica and each other', async () => {
      for (const port of sentinelPorts) {
        const m = await masterSeen(port);
        if (Number(m['num-slaves']) < 1 || Number(m['num-other-sentinels']) < sentinelPorts.length - 1) return false;
      }
      return true;
    });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
