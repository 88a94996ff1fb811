/**
 * `npm start`: migrate, seed the demo data when the database is empty, listen, and stop
 * gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close pools).
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from './config';
import { openServices, type OpenOptions, type Services } from './composition';
import { createLogger, type Logger } from './logger';
import { createApp } from './rest/app';

export interface RunningServer {
  url: string;
  services: Services;
  server: http.Server;
  stop(): Promise<void>;
}

export async function startServer(
  config: Config,
  logger: Logger,
  opts: OpenOptions & { clock?: () => number } = {},
): Promise<RunningServer> {
  const now = opts.clock ?? Date.now;
  const services = await openServices(config, opts);
  try {
    if (config.seedDemo && (await services.seeder.isEmpty())) {
      logger.info('empty database: seeding demo data (SEED_DEMO=false to skip)');
      const started = Date.now();
      const summary = await services.seeder.seed(now());
      logger.info({ ...summary, duration_ms: Date.now() - started }, 'demo data seeded');
    }
  } catch (err) {
    await services.close();
    throw err;
  }
  const app = createApp({ logger, health: services.health });
  const server = config.tls
    ? https.createServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, app)
    : http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `${config.tls ? 'https' : 'http'}://${host}:${addr.port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      await services.close();
    })());
  return { url, services, server, stop };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel);
  let running: RunningServer;
  try {
    running = await startServer(config, logger);
  } catch (err) {
    logger.fatal({ err }, 'start-up failed');
    process.stderr.write(`start-up failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const storage = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  process.stdout.write(
    `market-data service listening on ${running.url} (${storage}); ` +
      `make an API key: npx mds keys create --user-id <uuid> --tier pro\n`,
  );
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      running.stop().then(
        () => process.exit(0),
        (err) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

if (require.main === module) void main();
