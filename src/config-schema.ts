/**
 * The environment the service reads, as one zod schema: each variable's form, default and
 * range, and the checks across variables. config.ts turns a parsed environment into Config.
 */
import { z } from 'zod';
import { parseConnectionUrl } from './db/connection-url';
import { DATABASE_ENGINES } from './db/engine-layout';
import { EXCHANGE_CATALOGUE, parseExchangeList, servedListProblem } from './domain/exchanges';
import { parseSince, parseSymbolList, parseSymbolMap } from './domain/ingest-settings';
import { CANDLE_TIMEFRAMES } from './domain/timeframe';
import { resolveTierLimits } from './domain/tier-limits';

import {
  bool,
  parseBool,
  duration,
  exchangeName,
  optionalRetention,
  optionalString,
  parseReplicaUrls,
  parseSentinels,
  retentionOf,
  retentionVar,
  venueUrl,
  weightPerMinute,
} from './config-values';

export const envSchema = z
  .object({
    NODE_ENV: z.string().default('production'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    // libpq's URL, multi-host form included (postgresql://u@h1:5432,h2:5432/db?target_session_attrs=read-write).
    DATABASE_URL: optionalString.superRefine((v, ctx) => {
      if (v === undefined) return;
      try {
        parseConnectionUrl(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `must be a postgres:// or postgresql:// URL (${(err as Error).message})` });
      }
    }),
    // At least 3: a lock holder (the quality job, an import under its symbol lock) keeps one
    // connection while the work uses up to two more (the feature precompute reads a chunk while it
    // writes the previous one).
    DATABASE_POOL_SIZE: z.coerce.number().int().min(3).max(200).default(10),
    // Bounded waits on PostgreSQL, so a server that is down or silent gives a quick 503.
    DATABASE_CONNECT_TIMEOUT: duration('3s').refine((ms) => ms >= 100 && ms <= 300_000, 'must be between 100ms and 5m'),
    DATABASE_QUERY_TIMEOUT: duration('15s').refine((ms) => ms >= 100 && ms <= 3_600_000, 'must be between 100ms and 1h'),
    // Streaming standbys of DATABASE_URL for the API's data reads (docs/ARCHITECTURE.md, Read replicas).
    DATABASE_REPLICA_URLS: optionalString,
    // The engine under DATABASE_URL and the table layout the migrator gives it (docs/SCALING.md).
    DATABASE_ENGINE: z.enum(DATABASE_ENGINES).default('postgres'),
    // The replicas' positions are polled every second: a bound under that would drop them between polls.
    REPLICA_MAX_LAG: duration('5s').refine((ms) => ms >= 1_000 && ms <= 3_600_000, 'must be between 1s and 1h'),
    DATA_DIR: z.string().min(1).default('./data'),
    REDIS_URL: optionalString.refine((v) => v === undefined || /^rediss?:\/\//.test(v), {
      message: 'must be a redis:// or rediss:// URL',
    }),
    // Redis through Sentinel (docs/OPERATIONS.md, Redis failover): the master's address comes from
    // the sentinels; REDIS_URL, if set, still gives the password, database and TLS.
    REDIS_SENTINELS: optionalString,
    REDIS_SENTINEL_MASTER: optionalString.refine((v) => v === undefined || /^[A-Za-z0-9._:-]{1,64}$/.test(v), {
      message: 'must be a master name of 1-64 letters, digits, . _ : -',
    }),
    REDIS_SENTINEL_PASSWORD: optionalString,
    ADMIN_TOKEN: optionalString,
    UPGRADE_URL: z.string().url().default('https://example.com/pricing'),
    EXCHANGE_PERP: exchangeName.default('perp'),
    EXCHANGE_SPOT: exchangeName.default('spot'),
    EXCHANGE_BINANCE_PERP: exchangeName.default('binance-perp'),
    EXCHANGE_BYBIT_PERP: exchangeName.default('bybit-perp'),
    // The served exchanges (API names), in /v1/markets order; unset: every one.
    EXCHANGES: optionalString,
    // Unset: true, unless INGEST_SYMBOLS is set (then the venues' data, not the demo's).
    SEED_DEMO: optionalString,
    DEMO_FEED: bool(true),
    INGEST_SYMBOLS: optionalString,
    // The served exchanges INGEST_SYMBOLS follows; unset: every served one.
    INGEST_EXCHANGES: optionalString,
    INGEST_SINCE: z.string().default('30d'),
    INGEST_SYMBOL_MAP: optionalString,
    INGEST_RECONCILE_CANDLES: z.coerce.number().int().min(1).max(5_000).default(100),
    INGEST_REPAIR_INTERVAL: duration('15m').refine((ms) => ms >= 1_000 && ms <= 86_400_000, 'must be between 1s and 24h'),
    INGEST_WS_TIMEOUT: duration('30s').refine((ms) => ms >= 100 && ms <= 600_000, 'must be between 100ms and 10m'),
    INGEST_FUNDING_DELAY: duration('10s').refine((ms) => ms >= 0 && ms <= 3_600_000, 'must be between 0 and 1h'),
    HYPERLIQUID_API_URL: venueUrl('https://api.hyperliquid.xyz', /^(https?):/),
    HYPERLIQUID_WS_URL: venueUrl('wss://api.hyperliquid.xyz/ws', /^(wss?):/),
    BINANCE_API_URL: venueUrl('https://api.binance.com', /^(https?):/),
    BINANCE_WS_URL: venueUrl('wss://stream.binance.com:9443', /^(wss?):/),
    BINANCE_FUTURES_API_URL: venueUrl('https://fapi.binance.com', /^(https?):/),
    BINANCE_FUTURES_WS_URL: venueUrl('wss://fstream.binance.com', /^(wss?):/),
    BYBIT_API_URL: venueUrl('https://api.bybit.com', /^(https?):/),
    BYBIT_WS_URL: venueUrl('wss://stream.bybit.com/v5/public/linear', /^(wss?):/),
    HYPERLIQUID_WEIGHT_PER_MINUTE: weightPerMinute(600),
    BINANCE_WEIGHT_PER_MINUTE: weightPerMinute(3000),
    BINANCE_FUTURES_WEIGHT_PER_MINUTE: weightPerMinute(2400),
    BYBIT_WEIGHT_PER_MINUTE: weightPerMinute(6000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // Retention per candle timeframe (docs/OPERATIONS.md, Partitions and retention): unset keeps everything.
    RETENTION_1M: optionalRetention,
    RETENTION_5M: optionalRetention,
    RETENTION_15M: optionalRetention,
    RETENTION_1H: optionalRetention,
    RETENTION_4H: optionalRetention,
    RETENTION_1D: optionalRetention,
    RESPONSE_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(32),
    QUALITY_INTERVAL: duration('5m').refine((ms) => ms >= 1_000 && ms <= 86_400_000, 'must be between 1s and 24h'),
    GRAPHQL_COMPILED: bool(true),
    GRAPHQL_WS_KEEPALIVE: duration('12s').refine((ms) => ms >= 100 && ms <= 600_000, 'must be between 100ms and 10m'),
    TIER_LIMITS: optionalString,
    METRICS_TOKEN: optionalString,
    TLS_CERT_FILE: optionalString,
    TLS_KEY_FILE: optionalString,
    SHUTDOWN_TIMEOUT: duration('10s'),
  })
  .superRefine((vars, ctx) => {
    const names = exchangeRenames(vars);
    EXCHANGE_CATALOGUE.forEach((d, i) => {
      const earlier = EXCHANGE_CATALOGUE.slice(0, i).find((e) => names[e.key] === names[d.key]);
      if (earlier) ctx.addIssue({ code: 'custom', path: [d.variable], message: `must differ from ${earlier.variable}` });
    });
    const known = EXCHANGE_CATALOGUE.map((d) => names[d.key]);
    let served = known;
    try {
      if (vars.EXCHANGES !== undefined) served = parseExchangeList(vars.EXCHANGES, known);
      const problem = servedListProblem(served, names);
      if (problem) throw new Error(problem);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['EXCHANGES'], message: (err as Error).message });
    }
    if (vars.INGEST_EXCHANGES !== undefined) {
      try {
        parseExchangeList(vars.INGEST_EXCHANGES, served);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['INGEST_EXCHANGES'], message: `${(err as Error).message} (the served exchanges)` });
      }
    }
    if ((vars.TLS_CERT_FILE === undefined) !== (vars.TLS_KEY_FILE === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['TLS_KEY_FILE'], message: 'TLS_CERT_FILE and TLS_KEY_FILE go together' });
    }
    for (const [key, check] of [
      ['SEED_DEMO', () => vars.SEED_DEMO === undefined || parseBool(vars.SEED_DEMO)],
      ['INGEST_SYMBOLS', () => vars.INGEST_SYMBOLS === undefined || parseSymbolList(vars.INGEST_SYMBOLS)],
      ['INGEST_SINCE', () => parseSince(vars.INGEST_SINCE, 0)],
      ['INGEST_SYMBOL_MAP', () => vars.INGEST_SYMBOL_MAP === undefined || parseSymbolMap(vars.INGEST_SYMBOL_MAP)],
    ] as const) {
      try {
        check();
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: [key], message: (err as Error).message });
      }
    }
    if (vars.DATABASE_REPLICA_URLS !== undefined) {
      try {
        parseReplicaUrls(vars.DATABASE_REPLICA_URLS);
        if (vars.DATABASE_URL === undefined) throw new Error('needs DATABASE_URL (replicas are standbys of a PostgreSQL server)');
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['DATABASE_REPLICA_URLS'], message: (err as Error).message });
      }
    }
    if (vars.DATABASE_ENGINE !== 'postgres' && vars.DATABASE_URL === undefined) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_ENGINE'], message: `${vars.DATABASE_ENGINE} needs DATABASE_URL (the embedded PGlite is plain PostgreSQL)` });
    }
    if (vars.DATABASE_ENGINE === 'citus' && vars.DATABASE_REPLICA_URLS !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_REPLICA_URLS'], message: 'must stay unset on citus (the lag check compares one server WAL)' });
    }
    if (vars.REDIS_SENTINELS !== undefined) {
      try {
        parseSentinels(vars.REDIS_SENTINELS);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['REDIS_SENTINELS'], message: (err as Error).message });
      }
    } else {
      for (const key of ['REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_PASSWORD'] as const) {
        if (vars[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'needs REDIS_SENTINELS' });
      }
    }
    // A coarser timeframe is kept at least as long as a finer one: its rollups outlive the candles they came from.
    for (let i = 1; i < CANDLE_TIMEFRAMES.length; i++) {
      const finer = retentionOf(vars, CANDLE_TIMEFRAMES[i - 1]);
      const coarser = retentionOf(vars, CANDLE_TIMEFRAMES[i]);
      if (coarser !== undefined && (finer === undefined || coarser < finer)) {
        ctx.addIssue({
          code: 'custom',
          path: [retentionVar(CANDLE_TIMEFRAMES[i])],
          message: `must not be shorter than ${retentionVar(CANDLE_TIMEFRAMES[i - 1])} (${finer === undefined ? 'unset: kept for ever' : `${finer / 86_400_000}d`})`,
        });
      }
    }
    try {
      resolveTierLimits(vars.TIER_LIMITS);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['TIER_LIMITS'], message: (err as Error).message });
    }
  });

/** The API name of each catalogue exchange: its EXCHANGE_* variable's value. */
export function exchangeRenames(vars: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(EXCHANGE_CATALOGUE.map((d) => [d.key, typeof vars[d.variable] === 'string' ? (vars[d.variable] as string) : d.key]));
}
