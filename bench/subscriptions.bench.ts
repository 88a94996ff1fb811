/**
 * Subscriptions benchmark: `candleClosed` over graphql-ws, from the live write path (this process,
 * publishing on Redis after each commit) to gateways of their own with subscriptions open: latency
 * from commit to receipt (goal p99 <= 200 ms), nothing lost, memory per subscription, CPU per
 * event, per scenario `NxS` (N gateways, S subscriptions each). Opening the same count again after
 * closing catches a subscription the service failed to release. Options: bench/README.md.
 *   npm run bench:subscriptions -- [--rounds 60] [--warmup 3] [--scenarios 1x1000,2x500,2x1000]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { openServices, type Services } from '../src/composition';
import { loadConfig } from '../src/config';
import type { CandleInput } from '../src/domain/csv-rows';
import type { MarketEvent } from '../src/services/events/market-events';
import { BENCH_USER, ROOT, benchDatabase, freePort, gatewayEnv, runBench } from './bench-support';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '3' },
    interval: { type: 'string', default: '2000' },
    history: { type: 'string', default: '120' },
    scenarios: { type: 'string', default: '1x1000,2x500,2x1000' },
  },
});
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const INTERVAL_MS = Number(values.interval);
const HISTORY = Number(values.history);
const SCENARIOS = values.scenarios.split(',').map((s) => {
  const [instances, subs] = s.split('x').map(Number);
  return { name: s, instances, subs };
});
const MIN = 60_000;
const TARGET_P99_MS = 200;
const CLK_TCK = 100;
const SERIES = Array.from({ length: 10 }, (_, i) => `BENCH${i}-USDT`).flatMap((symbol) => ['perp', 'spot'].map((exchange) => ({ exchange, symbol, key: `${exchange}|${symbol}` })));
const QUERY = 'subscription($exchange: String!, $symbol: String!) { candleClosed(exchange: $exchange, symbol: $symbol, timeframe: "1m") { time open high low close volume } }';
const PROBE = { time: 'probe', open: '0', high: '0', low: '0', close: '0', volume: '0' };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + '+00:00';
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');

function summary(xs: number[]) {
  const s = Float64Array.from(xs).sort();
  const a = Array.from(s);
  return { n: a.length, p50: percentile(a, 50), p90: percentile(a, 90), p99: percentile(a, 99), max: a[a.length - 1] ?? NaN };
}

function candle(seriesIndex: number, t: number): CandleInput {
  const close = 100 * (seriesIndex + 1) + (((t / MIN) % 37) - 18) / 4;
  return { time: t, open: String(close - 0.5), high: String(close + 1), low: String(close - 1), close: String(close), volume: '1.5' };
}

interface Gateway {
  url: string;
  pid: number;
  inspectPort: number;
  /** pino lines at warn or above. */
  warnings: string[];
  stop(): Promise<number | null>;
}

/** Gateways started and not yet stopped (stopped on the way out if a scenario fails). */
const running = new Set<Gateway>();

/** `node dist/src/server.js` with an inspector port (to force a GC before a memory reading); its warn/error lines kept. */
async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const [port, inspectPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const warnings: string[] = [];
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (/"level":(4|5|6)\d/.test(line)) warnings.push(line);
  });
  child.stderr!.on('data', (d: Buffer) => {
    const text = d.toString();
    if (!/Debugger (listening|attached|ending)|For help, see|Waiting for the debugger/.test(text)) process.stderr.write(text);
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(url + '/health').then((r) => r.status === 200, () => false)) break;
    if (child.exitCode !== null || i > 600) {
      child.kill('SIGTERM');
      throw new Error(`gateway did not start (exit ${child.exitCode})`);
    }
    await sleep(100);
  }
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const gateway: Gateway = {
    url,
    pid: child.pid!,
    inspectPort,
    warnings,
    stop: () => {
      running.delete(gateway);
      if (child.exitCode === null) child.kill('SIGTERM');
      return child.exitCode !== null ? Promise.resolve(child.exitCode) : exited;
    },
  };
  running.add(gateway);
  return gateway;
}

/** A full GC in the gateway through its inspector. */
async function forceGc(inspectPort: number): Promise<void> {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
    ws.on('message', (m: Buffer) => {
      if ((JSON.parse(m.toString()) as { id?: number }).id === 1) resolve();
    });
  });
  ws.close();
}

interface Memory {
  /** Resident set as the OS sees it, read before the forced GC. */
  rssMb: number;
  /** V8 heap in use after a full GC. */
  heapMb: number;
  /** The gateway's event-loop delay since the previous scrape (prom-client resets it at each scrape; 10 ms resolution), ms. */
  lagP99Ms: number;
  lagMaxMs: number;
  /** The gateway's own count of open sockets and subscriptions (mds_graphql_ws_sockets, mds_graphql_subscriptions). */
  sockets: number;
  subscriptions: number;
}

const metric = (text: string, name: string) => Number(new RegExp(`^mds_${name} (\\S+)$`, 'm').exec(text)?.[1]);

async function memory(g: Gateway): Promise<Memory> {
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${g.pid}/status`, 'utf8'))?.[1]);
  const before = await (await fetch(g.url + '/metrics')).text();
  await forceGc(g.inspectPort);
  await sleep(300);
  const after = await (await fetch(g.url + '/metrics')).text();
  return {
    rssMb: rssKb / 1024,
    heapMb: metric(after, 'nodejs_heap_size_used_bytes') / 2 ** 20,
    lagP99Ms: metric(before, 'nodejs_eventloop_lag_p99_seconds') * 1000,
    lagMaxMs: metric(before, 'nodejs_eventloop_lag_max_seconds') * 1000,
    sockets: metric(after, 'graphql_ws_sockets'),
    subscriptions: metric(after, 'graphql_subscriptions'),
  };
}

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** One subscription: when each candle time arrived (performance.now()), and what else came. */
interface Sub {
  socket: Socket;
  series: (typeof SERIES)[number];
  heard: Map<string, number>;
  probes: number;
  duplicates: number;
  errors: unknown[];
  completed: boolean;
}

interface Socket {
  client: Client;
  instance: number;
  subs: Sub[];
  closedWith?: number;
}

async function openSockets(gateways: Gateway[], perInstance: number, key: string): Promise<Socket[]> {
  const sockets: Socket[] = [];
  const connected: Array<Promise<void>> = [];
  for (let i = 0; i < perInstance * gateways.length; i++) {
    const instance = i % gateways.length;
    let up: () => void = () => undefined;
    connected.push(new Promise<void>((r) => (up = r)));
    const socket: Socket = { instance, subs: [], client: undefined as unknown as Client };
    socket.client = createClient({
      url: gateways[instance].url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { apiKey: key },
      lazy: false,
      retryAttempts: 0,
      // A close is recorded (closedWith) and reported, not printed.
      onNonLazyError: () => undefined,
      on: { connected: () => up(), closed: (e) => void (socket.closedWith = (e as { code?: number }).code) },
    });
    socket.client.on('error', () => undefined);
    sockets.push(socket);
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('sockets did not connect within 60 s')), 60_000)));
  await Promise.race([Promise.all(connected), late]).finally(() => clearTimeout(timer));
  return sockets;
}

/** (Re)subscribe `sub` on its socket: its deliveries keep counting into the same record. */
function subscribe(sub: Sub): void {
  sub.socket.client.subscribe<{ candleClosed: { time: string } }>(
    { query: QUERY, variables: { exchange: sub.series.exchange, symbol: sub.series.symbol } },
    {
      next: (v) => {
        const at = performance.now();
        const time = v.data?.candleClosed.time ?? '';
        if (time === 'probe') sub.probes++;
        else if (sub.heard.has(time)) sub.duplicates++;
        else sub.heard.set(time, at);
      },
      error: (e) => void sub.errors.push(e),
      complete: () => void (sub.completed = true),
    },
  );
}

/** One subscription per series on every socket, all sent at once (as clients reconnecting after a deploy would). */
function subscribeAll(sockets: Socket[]): Sub[] {
  for (const socket of sockets) {
    for (const series of SERIES) {
      const sub: Sub = { socket, series, heard: new Map(), probes: 0, duplicates: 0, errors: [], completed: false };
      subscribe(sub);
      socket.subs.push(sub);
    }
  }
  return sockets.flatMap((s) => s.subs);
}

const codeOf = (errors: unknown[]) => (errors[0] as Array<{ extensions?: { code?: string } }> | undefined)?.[0]?.extensions?.code;

/**
 * Probe events on the bus (never stored) until every subscription heard one: they are all open.
 * A subscribe refused with SERVICE_UNAVAILABLE (the gateway's quota check timed out: bench/README.md)
 * is sent again, as a client retries it; the refusals are counted. Any other refusal stops the benchmark.
 */
async function ready(services: Services, subs: Sub[]): Promise<{ ms: number; retried: number }> {
  const started = performance.now();
  let retried = 0;
  while (!subs.every((s) => s.probes > 0)) {
    for (const s of subs.filter((x) => x.errors.length > 0)) {
      if (codeOf(s.errors) !== 'SERVICE_UNAVAILABLE') throw new Error(`a subscription was refused: ${JSON.stringify(s.errors[0])}`);
      s.errors.length = 0;
      s.completed = false;
      retried++;
      subscribe(s);
    }
    if (performance.now() - started > 120_000) throw new Error(`only ${subs.filter((s) => s.probes > 0).length} of ${subs.length} subscriptions open after 2 min`);
    await Promise.all(SERIES.map((s) => services.events.publisher.publish({ type: 'candle', exchange: s.exchange, symbol: s.symbol, timeframe: '1m', candles: [PROBE] })));
    await sleep(250);
  }
  return { ms: performance.now() - started, retried };
}

async function closeAll(sockets: Socket[]): Promise<void> {
  await Promise.all(sockets.map((s) => s.client.dispose()));
}

interface ScenarioResult {
  name: string;
  instances: number;
  subs: number;
  expected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  errors: number;
  latency: ReturnType<typeof summary>;
  toBus: ReturnType<typeof summary>;
  busToClient: ReturnType<typeof summary>;
  commitRound: ReturnType<typeof summary>;
  published: number;
  busMessages: Map<string, number>;
  benchLoopP99Ms: number;
  benchLoopMaxMs: number;
  perInstance: Array<{ memory: Record<'none' | 'sockets' | 'open' | 'afterRounds' | 'closed', Memory>; cpuMs: number; delivered: number; warnings: string[]; exit: number | null }>;
  reopenRefused: number;
  /** Subscribes refused with SERVICE_UNAVAILABLE and sent again: at the first open, at the reopen. */
  retried: [number, number];
  benchCpuMs: number;
  load: string;
}

async function runScenario(
  sc: (typeof SCENARIOS)[number],
  ctx: { services: Services; key: string; dbUrl: string; ids: number[]; nextMinute: () => number },
): Promise<ScenarioResult> {
  const { services, key } = ctx;
  const env = {
    ...gatewayEnv(ctx.dbUrl),
    LOG_LEVEL: 'warn',
    DEMO_FEED: 'false',
    QUALITY_INTERVAL: '1h',
    TIER_LIMITS: JSON.stringify({ scale: { minuteRequests: 1_000_000_000, subscriptions: sc.subs } }),
  };
  const socketsPer = sc.subs / SERIES.length;
  const gateways: Gateway[] = [];
  for (let i = 0; i < sc.instances; i++) gateways.push(await startGateway(env));
  const mem = gateways.map(() => ({}) as ScenarioResult['perInstance'][number]['memory']);
  const snapshot = async (phase: keyof ScenarioResult['perInstance'][number]['memory']) => {
    for (const [i, g] of gateways.entries()) mem[i][phase] = await memory(g);
  };
  await sleep(3_000);
  await snapshot('none');
  const sockets = await openSockets(gateways, socketsPer, key);
  await sleep(2_000);
  await snapshot('sockets');
  const subs = subscribeAll(sockets);
  const opened = await ready(services, subs);
  await sleep(2_000);
  for (const s of subs) s.probes = 0;
  await snapshot('open');
  console.log(`${sc.name}: ${gateways.length} gateway(s) (pids ${gateways.map((g) => g.pid).join(', ')}), ${sockets.length} sockets, ${subs.length} subscriptions open in ${(opened.ms / 1000).toFixed(1)} s (${opened.retried} subscribes refused with SERVICE_UNAVAILABLE and sent again; gateway event-loop delay meanwhile, max ${mem.map((m) => ms(m.open.lagMaxMs)).join(', ')} ms)`);

  // What this process hears back from Redis: when each 1m close was on the bus, and how many messages.
  const onBus = new Map<string, number>();
  const busMessages = new Map<string, number>();
  let counting = false;
  const unlisten = services.events.bus.listen((e: MarketEvent) => {
    const kind = e.type === 'candle' ? e.timeframe : e.type;
    if (counting) busMessages.set(kind, (busMessages.get(kind) ?? 0) + 1);
    if (e.type === 'candle' && e.timeframe === '1m' && e.candles.length === 1) onBus.set(`${e.exchange}|${e.symbol}|${e.candles[0].time}`, performance.now());
  });

  const committed = new Map<string, number>();
  const measuredTimes = new Set<string>();
  const writtenTimes = new Set<string>();
  const commitRound: number[] = [];
  let cpu0: number[] = [];
  let bench0 = process.cpuUsage();
  const load0 = os.loadavg()[0];
  // This process's own event-loop delay while it writes and receives: the part of a figure that is the measurement's.
  const benchLoop = monitorEventLoopDelay({ resolution: 1 });
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    if (r === WARMUP) {
      cpu0 = gateways.map((g) => cpuMs(g.pid));
      bench0 = process.cpuUsage();
      benchLoop.enable();
      counting = true;
    }
    const started = performance.now();
    const t = ctx.nextMinute();
    writtenTimes.add(iso(t));
    if (r >= WARMUP) measuredTimes.add(iso(t));
    await Promise.all(
      SERIES.map(async (s, i) => {
        await services.writer.candles({ id: ctx.ids[i], symbol: s.symbol }, '1m', [candle(i, t)]);
        committed.set(`${s.key}|${iso(t)}`, performance.now());
      }),
    );
    commitRound.push(performance.now() - started);
    await sleep(Math.max(0, INTERVAL_MS - (performance.now() - started)));
  }
  const expectedPerSub = writtenTimes.size;
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline && !subs.every((s) => s.heard.size >= expectedPerSub)) await sleep(50);
  const cpu1 = gateways.map((g) => cpuMs(g.pid));
  const benchCpu = process.cpuUsage(bench0);
  benchLoop.disable();
  counting = false;
  const load1 = os.loadavg()[0];
  unlisten();
  await snapshot('afterRounds');

  const latencies: number[] = [];
  const toBus: number[] = [];
  const busToClient: number[] = [];
  for (const t of measuredTimes) {
    for (const s of SERIES) {
      const k = `${s.key}|${t}`;
      const b = onBus.get(k);
      if (b !== undefined) toBus.push(b - committed.get(k)!);
    }
  }
  let delivered = 0;
  let duplicates = 0;
  let errors = 0;
  const deliveredPer = gateways.map(() => 0);
  for (const socket of sockets) {
    for (const sub of socket.subs) {
      duplicates += sub.duplicates;
      errors += sub.errors.length + (sub.completed ? 1 : 0);
      for (const [time, at] of sub.heard) {
        if (!writtenTimes.has(time)) continue;
        delivered++;
        if (!measuredTimes.has(time)) continue;
        deliveredPer[socket.instance]++;
        const k = `${sub.series.key}|${time}`;
        latencies.push(at - committed.get(k)!);
        const b = onBus.get(k);
        if (b !== undefined) busToClient.push(at - b);
      }
    }
  }
  const expected = subs.length * expectedPerSub;
  const closedEarly = sockets.filter((s) => s.closedWith !== undefined).length;
  if (closedEarly) console.log(`  ${closedEarly} sockets closed during the rounds (codes ${[...new Set(sockets.map((s) => s.closedWith).filter((c) => c !== undefined))].join(', ')})`);

  await closeAll(sockets);
  await sleep(2_000);
  await snapshot('closed');
  // The same number once more: a subscription count not released on close would be refused now.
  const again = await openSockets(gateways, socketsPer, key);
  const againSubs = subscribeAll(again);
  let reopenRefused = 0;
  let reopenRetried = 0;
  try {
    reopenRetried = (await ready(services, againSubs)).retried;
  } catch (err) {
    reopenRefused = againSubs.filter((s) => s.errors.length > 0).length;
    console.log(`  reopen: ${(err as Error).message}`);
  }
  await closeAll(again);
  const exits: Array<number | null> = [];
  for (const g of gateways) exits.push(await g.stop());

  return {
    name: sc.name,
    instances: sc.instances,
    subs: subs.length,
    expected,
    delivered,
    missing: expected - delivered,
    duplicates,
    errors,
    latency: summary(latencies),
    toBus: summary(toBus),
    busToClient: summary(busToClient),
    commitRound: summary(commitRound.slice(WARMUP)),
    published: ROUNDS * SERIES.length,
    busMessages,
    benchLoopP99Ms: benchLoop.percentile(99) / 1e6,
    benchLoopMaxMs: benchLoop.max / 1e6,
    perInstance: gateways.map((g, i) => ({ memory: mem[i], cpuMs: cpu1[i] - cpu0[i], delivered: deliveredPer[i], warnings: g.warnings, exit: exits[i] })),
    reopenRefused,
    retried: [opened.retried, reopenRetried],
    benchCpuMs: (benchCpu.user + benchCpu.system) / 1000,
    load: `${load0.toFixed(2)} -> ${load1.toFixed(2)}`,
  };
}

function report(results: ScenarioResult[]): void {
  console.log(`\nfan-out, commit -> client (ms), ${ROUNDS} rounds of 20 closes after ${WARMUP} warm-up rounds, a round every ${INTERVAL_MS} ms:`);
  console.log('| scenario | delivered / expected | p50 | p90 | p99 | max | commit -> on Redis p50 / p99 | Redis -> client p50 / p99 | 20 commits of a round p50 / max | bench loop delay p99 / max |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.delivered.toLocaleString('en')} / ${r.expected.toLocaleString('en')} | ${ms(r.latency.p50)} | ${ms(r.latency.p90)} | **${ms(r.latency.p99)}** | ${ms(r.latency.max)} | ` +
        `${ms(r.toBus.p50)} / ${ms(r.toBus.p99)} | ${ms(r.busToClient.p50)} / ${ms(r.busToClient.p99)} | ${ms(r.commitRound.p50)} / ${ms(r.commitRound.max)} | ${ms(r.benchLoopP99Ms)} / ${ms(r.benchLoopMaxMs)} |`,
    );
  }
  const f = (x: Memory) => `${x.rssMb.toFixed(1)} / ${x.heapMb.toFixed(1)}`;
  console.log('\nmemory of each gateway (RSS / V8 heap in use after a full GC, MB), and per subscription (KB):');
  console.log('| scenario | instance | no socket | sockets, 0 subscriptions | subscriptions open | after the rounds | all closed | per subscription vs sockets: RSS / heap | vs no socket: RSS / heap |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const per = r.subs / r.instances;
    const kb = (a: Memory, b: Memory) => `${(((a.rssMb - b.rssMb) * 1024) / per).toFixed(1)} / ${(((a.heapMb - b.heapMb) * 1024) / per).toFixed(1)}`;
    for (const [i, g] of r.perInstance.entries()) {
      const m = g.memory;
      console.log(`| ${r.name} | ${i + 1} (${per} subs) | ${f(m.none)} | ${f(m.sockets)} | ${f(m.open)} | ${f(m.afterRounds)} | ${f(m.closed)} | ${kb(m.open, m.sockets)} | ${kb(m.open, m.none)} |`);
    }
  }
  console.log(`\nCPU of each gateway over the ${ROUNDS} measured rounds (utime+stime, ${1000 / CLK_TCK} ms ticks), and its event-loop delay:`);
  console.log('| scenario | instance | CPU | events delivered | per delivered event | per published close | per bus message | loop delay p99 / max |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const bus = [...r.busMessages.values()].reduce((a, b) => a + b, 0);
    for (const [i, g] of r.perInstance.entries()) {
      console.log(
        `| ${r.name} | ${i + 1} | ${(g.cpuMs / 1000).toFixed(2)} s | ${g.delivered.toLocaleString('en')} | ${((g.cpuMs * 1000) / g.delivered).toFixed(0)} µs | ` +
          `${(g.cpuMs / r.published).toFixed(2)} ms | ${(g.cpuMs / bus).toFixed(2)} ms | ${ms(g.memory.afterRounds.lagP99Ms)} / ${ms(g.memory.afterRounds.lagMaxMs)} ms |`,
      );
    }
  }
  console.log('');
  for (const r of results) {
    const warnings = r.perInstance.flatMap((g) => g.warnings);
    const bus = [...r.busMessages].map(([k, n]) => `${k} ${n}`).join(', ');
    console.log(
      `${r.name}: missing ${r.missing}, duplicates ${r.duplicates}, subscription errors/completions ${r.errors}, refused on reopen ${r.reopenRefused}, ` +
        `subscribes refused with SERVICE_UNAVAILABLE and sent again ${r.retried[0]} (open) / ${r.retried[1]} (reopen), ` +
        `gateway exits ${r.perInstance.map((g) => g.exit).join(', ')}, warn/error lines ${warnings.length}; ${r.published} closes published, bus messages: ${bus}; ` +
        `bench process CPU ${(r.benchCpuMs / 1000).toFixed(1)} s; load average ${r.load}`,
    );
    const counts = (phase: keyof ScenarioResult['perInstance'][number]['memory']) => r.perInstance.map((g) => `${g.memory[phase].sockets}/${g.memory[phase].subscriptions}`).join(' + ');
    console.log(`  the gateways' own count of sockets/subscriptions: open ${counts('open')}, after the rounds ${counts('afterRounds')}, all closed ${counts('closed')}`);
    for (const w of warnings.slice(0, 5)) console.log(`  ${w.slice(0, 400)}`);
    console.log(`  p99 target <= ${TARGET_P99_MS} ms: ${r.latency.p99 <= TARGET_P99_MS ? 'met' : 'NOT met'}`);
  }
}

async function main(): Promise<void> {
  const db = await benchDatabase();
  const services = await openServices(loadConfig({ ...gatewayEnv(db.url), LOG_LEVEL: 'warn' }));
  const results: ScenarioResult[] = [];
  try {
    const { key } = await services.keys.create({ userId: BENCH_USER, tier: 'scale', label: 'subscriptions bench' });
    const ids: number[] = [];
    for (const s of SERIES) ids.push(await services.store.series.ensure({ exchange: s.exchange, symbol: s.symbol }));
    const totalRounds = SCENARIOS.length * (WARMUP + ROUNDS);
    let minute = Math.floor(Date.now() / MIN) * MIN - (HISTORY + totalRounds + 5) * MIN;
    const history = Array.from({ length: HISTORY }, (_, i) => minute + i * MIN);
    minute += HISTORY * MIN;
    const seeded = performance.now();
    await Promise.all(SERIES.map((s, i) => services.writer.candles({ id: ids[i], symbol: s.symbol }, '1m', history.map((t) => candle(i, t)))));
    console.log(`${SERIES.length} series, ${HISTORY} minutes of history each written in ${((performance.now() - seeded) / 1000).toFixed(1)} s; ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    const nextMinute = () => {
      const t = minute;
      minute += MIN;
      return t;
    };
    for (const sc of SCENARIOS) results.push(await runScenario(sc, { services, key, dbUrl: db.url, ids, nextMinute }));
  } finally {
    await Promise.all([...running].map((g) => g.stop()));
    await services.close();
    await db.drop();
  }
  report(results);
  const lost = results.some((r) => r.missing > 0 || r.errors > 0 || r.reopenRefused > 0 || r.perInstance.some((g) => g.memory.closed.subscriptions !== 0));
  if (lost) {
    console.log('deliveries missing, subscriptions ended, refused or still counted open after their sockets closed: see above');
    process.exitCode = 1;
  }
}

runBench(main);
