/**
 * `npm start`: migrate, seed the demo data when the database is empty, listen; on SIGTERM/SIGINT
 * drain within SHUTDOWN_TIMEOUT (readiness fails, the listener closes, requests in flight finish,
 * sockets close with 1001, the ingest lock is handed over); a second signal exits at once.
 */
import './node-env';
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import { liveSettings, openServices, type OpenOptions, type Services } from './composition';
import { loadConfig, type Config } from './config';
import { DataDirBusyError } from './db/datadir-lock';
import { optimizeHotWasmOnly } from './db/pglite.database';
import { createGraphQLHandler } from './graphql/apollo';
import { createFieldLimiter } from './graphql/field-rate-limit';
import { buildGraphQLSchema } from './graphql/schema';
import { attachSubscriptions } from './graphql/subscriptions';
import { EventHub } from './services/events/event-hub';
import { SubscriptionsService } from './services/events/subscriptions.service';
import { createHttpApp } from './http-app';
import { startPartitionSchedule } from './jobs/partition.job';
import { collectGarbage } from './services/runtime/collect-garbage';
import { DEMO_SYMBOLS } from './domain/demo-data';
import { startQualitySchedule } from './jobs/quality.job';
import { createLogger, type Logger } from './logger';
import { childSeed, takeEarlySeed } from './seed-process';
import { onShutdownSignals } from './shutdown';
import { withRoutableTarget } from './transport/request-target';

/** Owner of the key made at first start, so a fresh install can be queried at once. */
export const DEMO_USER_ID = '00000000-0000-4000-8000-000000000001';

export interface RunningServer {
  url: string;
  /** The key made by a start that found none (embedded database only; shown once), if any. */
  firstStartKey?: string;
  services: Services;
  server: http.Server;
  /** The Express app behind `server` (its routes are read by the OpenAPI coverage test). */
  app: Express;
  stop(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger, opts: OpenOptions = {}): Promise<RunningServer> {
  // A first embedded start seeds in a child process (src/seed-process.ts), before the server
  // opens the database: it listens only once the data is in.
  const dataDir = opts.dataDir ?? config.dataDir;
  const seeded = await (takeEarlySeed(dataDir) ?? childSeed(config, dataDir, logger));
  const services = await openServices(config, { logger, ...opts });
  const metrics = services.metrics;
  const now = services.clock;
  let firstStartKey: string | undefined;
  try {
    const started = Date.now();
    const summary = config.seedDemo
      ? await services.seeder.seedIfEmpty(now(), () => logger.info('empty database: seeding demo data (SEED_DEMO=false to skip)'))
      : null;
    const seed = seeded?.summary ? { summary: seeded.summary, durationMs: seeded.durationMs } : summary ? { summary, durationMs: Date.now() - started } : null;
    if (seed) {
      metrics.jobRun('seed_demo', 'ok', seed.durationMs / 1000);
      logger.info({ ...seed.summary, duration_ms: seed.durationMs }, 'demo data seeded');
    }
    // Embedded mode only: there the CLI cannot reach DATA_DIR while the server runs, so a
    // start that finds no key at all makes one. With PostgreSQL, use the CLI.
    if (!config.databaseUrl && !(await services.store.keys.any())) {
      firstStartKey = (await services.keys.create({ userId: DEMO_USER_ID, tier: 'pro', label: 'first start' })).key;
    }
  } catch (err) {
    await services.close();
    throw err;
  }
  let gql;
  let schema;
  // One limiter for HTTP and WebSocket operations (the per-field limits count in the quota store either way).
  const limitField = createFieldLimiter(services.quotaStore, services.clock);
  try {
    schema = await buildGraphQLSchema({ ...services, contextBackfill: services.exchanges.backfillsContext() });
    gql = await createGraphQLHandler({
      schema,
      compiled: config.graphqlCompiled,
      access: services.access,
      limitField,
      loaders: services,
      endpoints: services.endpoints,
      clock: services.clock,
    });
  } catch (err) {
    await services.close();
    throw err;
  }
  const app = createHttpApp({ logger, services, metrics, graphql: gql.handler });
  const listener = withRoutableTarget(app);
  const server = config.tls
    ? https.createServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, listener)
    : http.createServer(listener);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const hub = new EventHub(services.events.bus, (n) => metrics.delivered(n));
  const subscriptions = attachSubscriptions(server, {
    schema,
    access: services.access,
    subscriptions: new SubscriptionsService({ endpoints: services.endpoints, tiers: services.tiers, hub, clock: services.clock }),
    endpoints: services.endpoints,
    limitField,
    loaders: services,
    clock: services.clock,
    logger,
    keepAliveMs: config.graphqlWsKeepAliveMs,
  });
  metrics.subscriptionCounts(() => ({ sockets: subscriptions.sockets(), subscriptions: hub.size }));
  // After a seed in a child (which scored the data; writers ensure their own partitions), the
  // jobs' first runs here wait an interval: the server starts idle.
  const jobsDone = seeded?.summary != null;
  const stopQuality = startQualitySchedule(services.quality, config.qualityIntervalMs, logger, now, metrics, !jobsDone);
  const stopPartitions = startPartitionSchedule(services.partitions, logger, now, metrics, !jobsDone);
  const stopLaterSeed = startLaterSeed(config, services, logger, firstHealthy(server));
  const stopLiveData = startLiveData(config, services, logger);
  // Small pages are served from memory only while every watermark move is heard (response-cache.ts).
  const responses = services.responses;
  const stopFollowing = responses.enabled
    ? await services.store.followWatermarks(
        (move) => responses.moved(move),
        (listening) => responses.listeningChanged(listening),
      )
    : async () => undefined;
  const addr = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `${config.tls ? 'https' : 'http'}://${host}:${addr.port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Everything within SHUTDOWN_TIMEOUT, whatever the dependencies' state: each step gets what is left.
      const deadline = Date.now() + config.shutdownTimeoutMs;
      const within = <T>(work: Promise<T>, marginMs = 0) => Promise.race([work, new Promise<void>((r) => setTimeout(r, Math.max(0, deadline - marginMs - Date.now())).unref())]);
      // Readiness fails at once; the listener closes (new connections are refused); idle keep-alive
      // connections close; requests in flight finish.
      services.health.drain();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // WebSocket clients go with 1001 (going away); the ingest leader hands its lock over.
      await within(subscriptions.stop());
      hub.close();
      const jobs = Promise.all([stopQuality(), stopPartitions(), stopLaterSeed(), stopLiveData(), stopFollowing()]);
      // A third of the budget is kept for closing pools and connections.
      await within(closed, config.shutdownTimeoutMs / 3);
      server.closeAllConnections();
      await within(jobs, config.shutdownTimeoutMs / 6);
      await within(gql.stop(), config.shutdownTimeoutMs / 6);
      await within(services.close());
    })());
  return { url, firstStartKey, services, server, app, stop };
}

/** Resolves when the server first answers /health with 200, or after `withinMs` at the latest. */
function firstHealthy(server: http.Server | https.Server, withinMs = 15_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, withinMs);
    timer.unref();
    function onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
      if (req.url?.startsWith('/health')) res.once('finish', () => res.statusCode === 200 && done());
    }
    function done(): void {
      clearTimeout(timer);
      server.off('request', onRequest);
      resolve();
    }
    server.on('request', onRequest);
  });
}

/**
 * The demo's further exchanges and the perpetuals' context (DemoSeedService.seedLater), once the
 * server has reported healthy with the spec's two (`healthy`): on a database that holds the demo
 * only (its symbols and no other), never over a user's data. Returns a stop that waits for it.
 */
function startLaterSeed(config: Config, services: Services, logger: Logger, healthy: Promise<void>): () => Promise<void> {
  if (!config.seedDemo) return async () => undefined;
  const demo = new Set(DEMO_SYMBOLS.map((s) => s.symbol));
  let stopped = false;
  let cancel = () => undefined as void;
  const cancelled = new Promise<void>((resolve) => (cancel = resolve));
  const run = (async () => {
    await Promise.race([healthy, cancelled]);
    if (stopped) return;
    const series = await services.store.series.list();
    if (series.length === 0 || series.some((s) => !demo.has(s.symbol))) return;
    const started = Date.now();
    // Each series' and each symbol's garbage collected before the next is made: memory the seed
    // freed is then reused instead of left in the process for good (collect-garbage.ts).
    const summary = await services.seeder.seedLater(services.clock(), undefined, collectGarbage);
    if (summary) logger.info({ ...summary, duration_ms: Date.now() - started }, 'demo data seeded: further exchanges and the perpetual context');
  })().catch((err: unknown) => logger.error({ err }, 'demo seed of the further exchanges failed'));
  return async () => {
    stopped = true;
    cancel();
    await run;
  };
}

/**
 * What keeps the data current in the server: ingestion from the venues when INGEST_SYMBOLS is
 * set, else the demo feed while the demo data is served (DEMO_FEED); nothing otherwise.
 */
function startLiveData(config: Config, services: Services, logger: Logger): () => Promise<void> {
  if (config.ingest.symbols.length) {
    const run = services.ingest.run(config.ingest.symbols, liveSettings(config, services.clock()));
    return () => run.stop();
  }
  if (config.demoFeed && config.seedDemo) {
    return services.demoFeed.start((err) => logger.error({ err }, 'demo feed failed'));
  }
  return async () => undefined;
}

/** `npm start` (scripts/start.js) and `node dist/src/server.js`: the service until SIGTERM/SIGINT. */
export async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel);
  // Embedded, a long-lived process: only PGlite's hottest WebAssembly optimized (pglite.database.ts).
  if (!config.databaseUrl) optimizeHotWasmOnly();
  let running: RunningServer;
  try {
    running = await startServer(config, logger);
  } catch (err) {
    // A busy DATA_DIR is the user's situation, not a fault: one line, no stack.
    if (!(err instanceof DataDirBusyError)) logger.fatal({ err }, 'start-up failed');
    process.stderr.write(`start-up failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const storage = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  const keyHint = running.firstStartKey
    ? `no API key existed: a new pro key (shown once): ${running.firstStartKey}`
    : config.databaseUrl
      ? 'make an API key: npx mds keys create --user-id <uuid> --tier pro'
      : 'make an API key: stop the server, then npx mds keys create --user-id <uuid> --tier pro (or POST /v1/auth/keys with ADMIN_TOKEN set)';
  process.stdout.write(`market-data service listening on ${running.url} (${storage}); ${keyHint}\n`);
  onShutdownSignals(logger, config.shutdownTimeoutMs, () =>
    running.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    ),
  );
}

if (require.main === module) void main();

/**
 * Requests node:http refuses before the app sees them (a head over 16 KB, a malformed request
 * line) still get the error envelope and a request id, then the connection is closed.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // Never into a response still being sent on this connection (a request pipelined behind
  // it); between requests of a keep-alive connection the answer is safe.
  const inFlight = (socket as Socket & { _httpMessage?: { writableEnded: boolean } | null })._httpMessage;
  if (!socket.writable || (inFlight && !inFlight.writableEnded) || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const id = randomUUID();
  const body = JSON.stringify({
    error: 'INVALID_PARAMETER',
    message: tooLarge ? 'request headers are too large (16 KB at most)' : 'malformed HTTP request',
    request_id: id,
  });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
  );
}
