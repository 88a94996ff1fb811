/**
 * The `mds` command: operations over the same services the server uses.
 * Every failure exits non-zero with a one-line reason on stderr.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { onShutdownSignals } from './shutdown';
import { loadConfig } from './config';
import pino from 'pino';
import { liveSettings, openServices, type Services } from './composition';
import { parseSince } from './domain/ingest-settings';
import { startQualitySchedule } from './jobs/quality.job';
import { createLogger } from './logger';
import { migrate, MIGRATIONS_DIR } from './db/migrator';
import { DATABASE_ENGINES, isDatabaseEngine } from './db/engine-layout';
import { SYMBOL, TIMEFRAME } from './domain/params/market-params';
import { parseValue } from './domain/params/param';
import { NEW_API_KEY } from './rest/serializers/api-key.serializer';
import { parseNewKeyBody } from './rest/serializers/new-key.body';

type OptionValue = string | boolean | string[] | undefined;

interface Command {
  usage: string;
  summary: string;
  options: Record<string, { type: 'string' | 'boolean'; required?: boolean; multiple?: boolean; help: string }>;
  run(services: Services, options: Record<string, OptionValue>): Promise<unknown>;
  /** Logs go to stderr unless the command's output is its log (a long-running command). */
  logsToStdout?: boolean;
}

const now = () => Date.now();

/** The options of an import into a perpetual series. */
const PERP_IMPORT_OPTIONS: Command['options'] = {
  exchange: { type: 'string', required: true, help: 'a perpetual exchange (its API name, e.g. perp)' },
  symbol: { type: 'string', required: true, help: 'BASE-QUOTE, e.g. BTC-USDT' },
  file: { type: 'string', required: true, help: 'path of the CSV file' },
};

const COMMANDS: Record<string, Command> = {
  migrate: {
    usage: 'mds migrate [--engine postgres|timescaledb|citus]',
    summary: 'apply pending database migrations (also done at every start), then the table layout of the engine (docs/SCALING.md)',
    options: { engine: { type: 'string', help: 'postgres, timescaledb or citus; default DATABASE_ENGINE (postgres)' } },
    async run(services, options) {
      const engine = options.engine === undefined ? services.config.databaseEngine : String(options.engine);
      if (!isDatabaseEngine(engine)) throw new Error(`--engine: must be one of ${DATABASE_ENGINES.join(', ')}`);
      if (engine !== 'postgres' && services.store.db.kind !== 'postgres') throw new Error(`--engine ${engine} needs DATABASE_URL`);
      return { applied: await migrate(services.store.db, MIGRATIONS_DIR, engine), engine };
    },
  },
  'import candles': {
    usage: 'mds import candles --exchange E --symbol S --timeframe TF --file F.csv',
    summary: 'import candles from CSV (header time,open,high,low,close,volume), then roll up and compute features',
    options: {
      exchange: { type: 'string', required: true, help: 'venue (EXCHANGE_PERP or EXCHANGE_SPOT)' },
      symbol: { type: 'string', required: true, help: 'BASE-QUOTE, e.g. BTC-USDT' },
      timeframe: { type: 'string', required: true, help: '1m, 5m, 15m, 1h, 4h or 1d' },
      file: { type: 'string', required: true, help: 'path of the CSV file' },
    },
    async run(services, options) {
      const tf = parseValue(TIMEFRAME, String(options.timeframe));
      const market = { exchange: String(options.exchange), symbol: parseValue(SYMBOL, String(options.symbol)) };
      return services.recompute.forSymbol(market.symbol, async () => {
        const t0 = performance.now();
        const result = await services.importer.importCandles(market, tf, String(options.file));
        const t1 = performance.now();
        if (result.from !== null && result.to !== null) {
          await services.recompute.afterCandlesChanged(result.seriesId, tf, result.from, result.to, now(), result.bars);
        }
        const t2 = performance.now();
        return { ...summarize(result), duration_ms: { import: Math.round(t1 - t0), rollup_and_features: Math.round(t2 - t1) } };
      });
    },
  },
  'import funding': {
    usage: 'mds import funding --exchange E --symbol S --file F.csv',
    summary: 'import hourly funding rates from CSV (header time,rate); perpetual venue only',
    options: PERP_IMPORT_OPTIONS,
    async run(services, options) {
      const market = { exchange: String(options.exchange), symbol: parseValue(SYMBOL, String(options.symbol)) };
      return services.recompute.forSymbol(market.symbol, async () => {
        const t0 = performance.now();
        const result = await services.importer.importFunding(market, String(options.file));
        const t1 = performance.now();
        await services.recompute.afterFundingChanged(result.seriesId, result.from ?? undefined, result.to ?? undefined);
        return { ...summarize(result), duration_ms: { import: Math.round(t1 - t0), features: Math.round(performance.now() - t1) } };
      });
    },
  },
  'import derivatives': {
    usage: 'mds import derivatives --exchange E --symbol S --file F.csv',
    summary:
      "import a perpetual's context per minute from CSV (header time,open_interest,mark_price,oracle_price,mid_price,predicted_funding_rate,venue_premium), then roll it up",
    options: PERP_IMPORT_OPTIONS,
    async run(services, options) {
      const market = { exchange: String(options.exchange), symbol: parseValue(SYMBOL, String(options.symbol)) };
      const t0 = performance.now();
      const result = await services.importer.importDerivatives(market, String(options.file));
      const t1 = performance.now();
      if (result.from !== null && result.to !== null) await services.recompute.afterDerivativesChanged(result.seriesId, result.from, result.to, now());
      return { ...summarize(result), duration_ms: { import: Math.round(t1 - t0), rollups: Math.round(performance.now() - t1) } };
    },
  },
  'seed-demo': {
    usage: 'mds seed-demo',
    summary: 'write the deterministic demo data set ending now (idempotent)',
    options: {},
    run: async (services) => ({ ...(await services.seeder.seed(now())), qualityRecords: await services.quality.computeAll(now()) }),
  },
  partitions: {
    usage: 'mds partitions',
    summary:
      "create the coming periods' partitions of candles, features and derivatives (the perpetual context) and apply RETENTION_* to all three (the server does it hourly); prints every partition",
    options: {},
    async run(services) {
      const out = await services.partitions.runExclusive(now());
      if (out === null) throw new Error('another process is running the partition job: try again in a moment');
      const list = await services.partitions.list();
      return {
        ...out,
        partitions: list.map((p) => ({ table: p.table, timeframe: p.timeframe, name: p.name, from: new Date(p.startMs).toISOString(), to: new Date(p.endMs).toISOString() })),
      };
    },
  },
  'watermarks bump': {
    usage: 'mds watermarks bump',
    summary: 'after writing data outside the service (psql, a restore): move every page\'s write watermark, so no ETag remembered before is answered with 304 again',
    options: {},
    run: async (services) => ({ epoch: await services.tags.bumpAll() }),
  },
  compute: {
    usage: 'mds compute',
    summary: "recompute everything derived from stored data (the candles' and the perpetual context's rollups, features, quality)",
    options: {},
    run: (services) => services.recompute.recomputeAll(now()),
  },
  sync: {
    usage: 'mds sync [--exchange E] [--symbol S ...] [--since 30d|ISO|ms]',
    summary: 'backfill candles (and perpetual funding) from the venues up to the last closed candle, resuming from what is stored; prints a JSON summary',
    options: {
      exchange: { type: 'string', help: 'one served exchange (its API name); default INGEST_EXCHANGES (every served one)' },
      symbol: { type: 'string', multiple: true, help: 'BASE-QUOTE, repeatable; default INGEST_SYMBOLS' },
      since: { type: 'string', help: 'a duration back from now (30d), an ISO time or Unix ms; default INGEST_SINCE (30d)' },
    },
    async run(services, options) {
      const symbols = options.symbol ? (options.symbol as string[]).map((x) => parseValue(SYMBOL, x)) : services.config.ingest.symbols;
      if (symbols.length === 0) throw new Error('no symbols: pass --symbol or set INGEST_SYMBOLS');
      const exchanges = options.exchange === undefined ? services.config.ingest.exchanges : [services.exchanges.parseExchange(String(options.exchange))];
      let sinceMs: number;
      try {
        sinceMs = parseSince(String(options.since ?? services.config.ingest.since), now());
      } catch (err) {
        throw new Error(`--since: ${(err as Error).message}`);
      }
      return services.ingest.sync({ symbols, exchanges, sinceMs });
    },
  },
  ingest: {
    usage: 'mds ingest',
    summary: 'backfill INGEST_SYMBOLS from the venues, then follow them live until SIGTERM (one process at a time ingests; others stand by)',
    options: {},
    logsToStdout: true,
    async run(services) {
      if (services.config.ingest.symbols.length === 0) throw new Error('INGEST_SYMBOLS is not set');
      const run = services.ingest.run(services.config.ingest.symbols, liveSettings(services.config, now()));
      const stopQuality = startQualitySchedule(services.quality, services.config.qualityIntervalMs, services.logger, now, services.metrics);
      await new Promise<void>((resolve) => onShutdownSignals(services.logger, services.config.shutdownTimeoutMs, resolve));
      services.logger.info('ingest: stopping');
      await Promise.all([run.stop(), stopQuality()]);
      return { stopped: true };
    },
  },
  'keys create': {
    usage: 'mds keys create --user-id UUID --tier free|pro|scale [--label L]',
    summary: 'create an API key and print it once as JSON',
    options: {
      'user-id': { type: 'string', required: true, help: 'owner (UUID)' },
      tier: { type: 'string', required: true, help: 'free, pro or scale' },
      label: { type: 'string', help: 'free-form name, at most 100 characters' },
    },
    run: async (services, options) => NEW_API_KEY.render(await services.keys.create(parseNewKeyBody({ user_id: options['user-id'], tier: options.tier, label: options.label }))),
  },
};

function summarize(r: { exchange: string; symbol: string; rows: number; from: number | null; to: number | null }) {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return { exchange: r.exchange, symbol: r.symbol, rows: r.rows, from: iso(r.from), to: iso(r.to) };
}

function help(cmd?: Command): string {
  if (cmd) {
    const opts = Object.entries(cmd.options).map(
      ([k, v]) => `  --${k.padEnd(10)} ${v.help}${v.required ? ' (required)' : ''}${v.multiple ? ' (repeatable)' : ''}`,
    );
    return [`usage: ${cmd.usage}`, '', cmd.summary, ...(opts.length ? ['', 'options:', ...opts] : [])].join('\n');
  }
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return [
    'usage: mds <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    'Storage: DATABASE_URL (PostgreSQL) or embedded PGlite in DATA_DIR (default ./data).',
    'Every command accepts --help.',
  ].join('\n');
}

export async function runCli(argv: string[]): Promise<number> {
  const words = argv.filter((a) => !a.startsWith('-'));
  const name = [words.slice(0, 2).join(' '), words[0]].find((n) => n !== undefined && COMMANDS[n]);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!name) {
    if (wantsHelp) {
      process.stdout.write(help() + '\n');
      return 0;
    }
    if (argv.length === 0) {
      process.stdout.write(help() + '\n');
      process.stderr.write('mds: no command given (try mds --help)\n');
      return 2;
    }
    process.stderr.write(`mds: unknown command "${argv.join(' ')}" (try mds --help)\n`);
    return 2;
  }
  const cmd = COMMANDS[name];
  if (wantsHelp) {
    process.stdout.write(help(cmd) + '\n');
    return 0;
  }
  let values: Record<string, OptionValue>;
  try {
    const parsed = parseArgs({
      args: argv.slice(name.split(' ').length),
      options: Object.fromEntries(Object.entries(cmd.options).map(([k, v]) => [k, { type: v.type, multiple: v.multiple === true }])),
      allowPositionals: false,
      strict: true,
    });
    values = parsed.values as Record<string, OptionValue>;
    const missing = Object.entries(cmd.options).find(([k, v]) => v.required && !values[k]);
    if (missing) throw new Error(`--${missing[0]} is required`);
  } catch (err) {
    process.stderr.write(`mds ${name}: ${(err as Error).message} (usage: ${cmd.usage})\n`);
    return 2;
  }
  let services: Services | undefined;
  try {
    const config = loadConfig();
    const logger = createLogger(config.logLevel, cmd.logsToStdout ? undefined : pino.destination(2));
    // The commands write and compute on the primary: no replica pools (DATABASE_REPLICA_URLS).
    services = await openServices(config, { migrate: name !== 'migrate', logger, readReplicas: false });
    const out = await cmd.run(services, values);
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return 0;
  } catch (err) {
    process.stderr.write(`mds ${name}: ${(err as Error).message.split('\n')[0]}\n`);
    return 1;
  } finally {
    await services?.close();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
