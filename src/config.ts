/**
 * The service's configuration: the environment, validated once at start-up by the schema in
 * config-schema.ts, turned into Config. A bad value stops the process with a message naming
 * the variable (docs/CONFIGURATION.md is the table users read).
 */
import path from 'node:path';
import type { DatabaseEngine } from './db/engine-layout';
import { parseSymbolList, parseSymbolMap, type SymbolMap } from './domain/ingest-settings';
import { CANDLE_TIMEFRAMES, type CandleTimeframe } from './domain/timeframe';
import { resolveTierLimits, type TierLimits } from './domain/tier-limits';
import type { Tier } from './domain/tiers';

import {
  type HostPort,
  parseBool,
  parseReplicaUrls,
  parseSentinels,
  retentionOf,
} from './config-values';
import { envSchema, exchangeRenames } from './config-schema';
import { EXCHANGE_CATALOGUE, parseExchangeList } from './domain/exchanges';

export interface Config {
  env: string;
  port: number;
  host: string;
  databaseUrl?: string;
  databasePoolSize: number;
  /** Longest wait for a PostgreSQL connection (a free one from the pool or a new one), ms. */
  databaseConnectTimeoutMs: number;
  /** Longest run of one statement outside sessions and transactions (the API's reads), ms. */
  databaseQueryTimeoutMs: number;
  /** Streaming standbys of `databaseUrl` serving the API's data reads; empty: every read on the primary. */
  databaseReplicaUrls: string[];
  /** A replica serves reads only while it has replayed the primary's WAL position of at most this long ago, ms. */
  replicaMaxLagMs: number;
  /** DATABASE_ENGINE: the table layout the migrator makes and the statement forms the service uses. */
  databaseEngine: DatabaseEngine;
  dataDir: string;
  /** Quotas and events shared through Redis; absent: in process (one instance). */
  redis?: RedisTarget;
  adminToken?: string;
  upgradeUrl: string;
  /** The served exchanges' API names in /v1/markets order, and every catalogue key's API name. */
  exchanges: { served: string[]; names: Record<string, string> };
  seedDemo: boolean;
  /** Append the demo series' next candle at every minute close (demo data seeded, no ingestion). */
  demoFeed: boolean;
  ingest: IngestConfig;
  logLevel: string;
  /** Memory for small pages served again while their watermarks hold (0: off; off with replicas). */
  responseCacheBytes: number;
  qualityIntervalMs: number;
  /** How long each candle timeframe's candles and features are kept (ms); absent: for ever. */
  retentionMs: Partial<Record<CandleTimeframe, number>>;
  /** Execute GraphQL operations compiled by graphql-jit (false: graphql-js interprets them). */
  graphqlCompiled: boolean;
  /** Ping interval of GraphQL WebSocket clients; one that misses a pong until the next ping is dropped (ms). */
  graphqlWsKeepAliveMs: number;
  tierLimits: Record<Tier, TierLimits>;
  metricsToken?: string;
  tls?: { certFile: string; keyFile: string };
  shutdownTimeoutMs: number;
}

/** Where Redis is: the server of `url`, or the master the sentinels name. */
export interface RedisTarget {
  /** REDIS_URL; with sentinels only its password, database and TLS (rediss:) are used. */
  url?: string;
  /** REDIS_SENTINELS; empty: `url`'s host is the server. */
  sentinels: HostPort[];
  /** REDIS_SENTINEL_MASTER: the name the sentinels monitor the master under. */
  sentinelMaster: string;
  sentinelPassword?: string;
}

/** Fetching the venues' data (README "Live data from the venues"). */
export interface IngestConfig {
  /** Symbols to ingest on every exchange of `exchanges`; empty: no ingestion, nothing reaches the network. */
  symbols: string[];
  /** The served exchanges ingested (INGEST_EXCHANGES; default every served one), API names. */
  exchanges: string[];
  /** The backfill start, as given (a duration back from now, ISO or Unix ms); see parseSince. */
  since: string;
  symbolMap: SymbolMap;
  reconcileCandles: number;
  repairIntervalMs: number;
  /** A socket silent this long is dropped and reconnected. */
  socketTimeoutMs: number;
  /** Funding is polled this long after each hour's settlement. */
  fundingDelayMs: number;
  hyperliquid: { apiUrl: string; wsUrl: string; weightPerMinute: number };
  binance: { apiUrl: string; wsUrl: string; weightPerMinute: number };
  binanceFutures: { apiUrl: string; wsUrl: string; weightPerMinute: number };
  bybit: { apiUrl: string; wsUrl: string; weightPerMinute: number };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parse the environment; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means unset, for every key alike (VAR= in a shell or a compose file).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`);
    throw new ConfigError(`Invalid environment variables: ${lines.join('; ')}`);
  }
  const vars = parsed.data;
  const names = exchangeRenames(vars);
  const served = vars.EXCHANGES === undefined ? EXCHANGE_CATALOGUE.map((d) => names[d.key]) : parseExchangeList(vars.EXCHANGES, Object.values(names));
  return {
    env: vars.NODE_ENV,
    port: vars.PORT,
    host: vars.HOST,
    databaseUrl: vars.DATABASE_URL,
    databasePoolSize: vars.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT,
    databaseQueryTimeoutMs: vars.DATABASE_QUERY_TIMEOUT,
    databaseReplicaUrls: vars.DATABASE_REPLICA_URLS === undefined ? [] : parseReplicaUrls(vars.DATABASE_REPLICA_URLS),
    replicaMaxLagMs: vars.REPLICA_MAX_LAG,
    databaseEngine: vars.DATABASE_ENGINE,
    dataDir: path.resolve(vars.DATA_DIR),
    redis:
      vars.REDIS_URL === undefined && vars.REDIS_SENTINELS === undefined
        ? undefined
        : {
            url: vars.REDIS_URL,
            sentinels: vars.REDIS_SENTINELS === undefined ? [] : parseSentinels(vars.REDIS_SENTINELS),
            sentinelMaster: vars.REDIS_SENTINEL_MASTER ?? 'mymaster',
            sentinelPassword: vars.REDIS_SENTINEL_PASSWORD,
          },
    adminToken: vars.ADMIN_TOKEN,
    upgradeUrl: vars.UPGRADE_URL,
    exchanges: { served, names },
    seedDemo: vars.SEED_DEMO === undefined ? vars.INGEST_SYMBOLS === undefined : parseBool(vars.SEED_DEMO),
    demoFeed: vars.DEMO_FEED,
    ingest: {
      symbols: vars.INGEST_SYMBOLS === undefined ? [] : parseSymbolList(vars.INGEST_SYMBOLS),
      exchanges: vars.INGEST_EXCHANGES === undefined ? served : parseExchangeList(vars.INGEST_EXCHANGES, served),
      since: vars.INGEST_SINCE,
      symbolMap: vars.INGEST_SYMBOL_MAP === undefined ? {} : parseSymbolMap(vars.INGEST_SYMBOL_MAP),
      reconcileCandles: vars.INGEST_RECONCILE_CANDLES,
      repairIntervalMs: vars.INGEST_REPAIR_INTERVAL,
      socketTimeoutMs: vars.INGEST_WS_TIMEOUT,
      fundingDelayMs: vars.INGEST_FUNDING_DELAY,
      hyperliquid: { apiUrl: vars.HYPERLIQUID_API_URL, wsUrl: vars.HYPERLIQUID_WS_URL, weightPerMinute: vars.HYPERLIQUID_WEIGHT_PER_MINUTE },
      binance: { apiUrl: vars.BINANCE_API_URL, wsUrl: vars.BINANCE_WS_URL, weightPerMinute: vars.BINANCE_WEIGHT_PER_MINUTE },
      binanceFutures: { apiUrl: vars.BINANCE_FUTURES_API_URL, wsUrl: vars.BINANCE_FUTURES_WS_URL, weightPerMinute: vars.BINANCE_FUTURES_WEIGHT_PER_MINUTE },
      bybit: { apiUrl: vars.BYBIT_API_URL, wsUrl: vars.BYBIT_WS_URL, weightPerMinute: vars.BYBIT_WEIGHT_PER_MINUTE },
    },
    logLevel: vars.LOG_LEVEL,
    responseCacheBytes: vars.DATABASE_REPLICA_URLS !== undefined ? 0 : vars.RESPONSE_CACHE_MB * 1024 * 1024,
    qualityIntervalMs: vars.QUALITY_INTERVAL,
    retentionMs: Object.fromEntries(CANDLE_TIMEFRAMES.map((tf) => [tf, retentionOf(vars, tf)]).filter(([, ms]) => ms !== undefined)),
    graphqlCompiled: vars.GRAPHQL_COMPILED,
    graphqlWsKeepAliveMs: vars.GRAPHQL_WS_KEEPALIVE,
    tierLimits: resolveTierLimits(vars.TIER_LIMITS),
    metricsToken: vars.METRICS_TOKEN,
    tls: vars.TLS_CERT_FILE && vars.TLS_KEY_FILE ? { certFile: vars.TLS_CERT_FILE, keyFile: vars.TLS_KEY_FILE } : undefined,
    shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT,
  };
}
