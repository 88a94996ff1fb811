/**
 * Every environment variable the service reads, validated once at start-up.
 * A bad value stops the process with a message naming the variable (see README
 * "Configuration" for the table users read).
 */
import path from 'node:path';
import { z } from 'zod';
import { resolveTierLimits, type TierLimits } from './domain/tier-limits';
import type { Tier } from './domain/tiers';

const bool = (def: boolean) =>
  z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' }))
    .optional()
    .transform((v) => (v === undefined ? def : v === 'true' || v === '1' || v === 'yes'));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const exchangeName = z.string().regex(/^[a-z0-9_.-]{1,32}$/, 'must be 1-32 lowercase letters, digits, _ . -');

/** A duration: plain seconds ("300") or with a unit ("5m", "30s", "1h"). */
const duration = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v, ctx) => {
      const m = /^(\d+)(ms|s|m|h)?$/.exec(v.trim());
      if (!m) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 300, 30s, 5m or 1h' });
        return z.NEVER;
      }
      const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
      return Number(m[1]) * unit;
    });

const schema = z
  .object({
    NODE_ENV: z.string().default('production'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
      message: 'must be a postgres:// or postgresql:// URL',
    }),
    // At least 3: a lock holder (the quality job, an import under its symbol lock) keeps one
    // connection while the work uses up to two more (the feature precompute reads a chunk while it
    // writes the previous one).
    DATABASE_POOL_SIZE: z.coerce.number().int().min(3).max(200).default(10),
    // Bounded waits on PostgreSQL, so a server that is down or silent gives a quick 503.
    DATABASE_CONNECT_TIMEOUT: duration('3s').refine((ms) => ms >= 100 && ms <= 300_000, 'must be between 100ms and 5m'),
    DATABASE_QUERY_TIMEOUT: duration('15s').refine((ms) => ms >= 100 && ms <= 3_600_000, 'must be between 100ms and 1h'),
    DATA_DIR: z.string().min(1).default('./data'),
    REDIS_URL: optionalString.refine((v) => v === undefined || /^rediss?:\/\//.test(v), {
      message: 'must be a redis:// or rediss:// URL',
    }),
    ADMIN_TOKEN: optionalString,
    UPGRADE_URL: z.string().url().default('https://example.com/pricing'),
    EXCHANGE_PERP: exchangeName.default('perp'),
    EXCHANGE_SPOT: exchangeName.default('spot'),
    SEED_DEMO: bool(true),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    QUALITY_INTERVAL: duration('5m').refine((ms) => ms >= 1_000 && ms <= 86_400_000, 'must be between 1s and 24h'),
    TIER_LIMITS: optionalString,
    METRICS_TOKEN: optionalString,
    TLS_CERT_FILE: optionalString,
    TLS_KEY_FILE: optionalString,
    SHUTDOWN_TIMEOUT: duration('10s'),
  })
  .superRefine((c, ctx) => {
    if (c.EXCHANGE_PERP === c.EXCHANGE_SPOT) {
      ctx.addIssue({ code: 'custom', path: ['EXCHANGE_SPOT'], message: 'must differ from EXCHANGE_PERP' });
    }
    if ((c.TLS_CERT_FILE === undefined) !== (c.TLS_KEY_FILE === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['TLS_KEY_FILE'], message: 'TLS_CERT_FILE and TLS_KEY_FILE go together' });
    }
    try {
      resolveTierLimits(c.TIER_LIMITS);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['TIER_LIMITS'], message: (err as Error).message });
    }
  });

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
  dataDir: string;
  redisUrl?: string;
  adminToken?: string;
  upgradeUrl: string;
  exchanges: { perp: string; spot: string };
  seedDemo: boolean;
  logLevel: string;
  qualityIntervalMs: number;
  tierLimits: Record<Tier, TierLimits>;
  metricsToken?: string;
  tls?: { certFile: string; keyFile: string };
  shutdownTimeoutMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parse the environment; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means unset, for every key alike (VAR= in a shell or a compose file).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`);
    throw new ConfigError(`Invalid environment variables: ${lines.join('; ')}`);
  }
  const c = parsed.data;
  return {
    env: c.NODE_ENV,
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    databasePoolSize: c.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: c.DATABASE_CONNECT_TIMEOUT,
    databaseQueryTimeoutMs: c.DATABASE_QUERY_TIMEOUT,
    dataDir: path.resolve(c.DATA_DIR),
    redisUrl: c.REDIS_URL,
    adminToken: c.ADMIN_TOKEN,
    upgradeUrl: c.UPGRADE_URL,
    exchanges: { perp: c.EXCHANGE_PERP, spot: c.EXCHANGE_SPOT },
    seedDemo: c.SEED_DEMO,
    logLevel: c.LOG_LEVEL,
    qualityIntervalMs: c.QUALITY_INTERVAL,
    tierLimits: resolveTierLimits(c.TIER_LIMITS),
    metricsToken: c.METRICS_TOKEN,
    tls: c.TLS_CERT_FILE && c.TLS_KEY_FILE ? { certFile: c.TLS_CERT_FILE, keyFile: c.TLS_KEY_FILE } : undefined,
    shutdownTimeoutMs: c.SHUTDOWN_TIMEOUT,
  };
}
