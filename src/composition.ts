/**
 * The composition root: the only module that knows every layer. The server and the `mds`
 * CLI both build their services here, so they run the same code over the same storage.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import type { Database } from './db/database';
import { migrate } from './db/migrator';
import { openDatabase } from './db/open-database';
import { ComputeService } from './services/compute.service';
import { QualityService } from './services/quality.service';
import { FeatureEngine } from './services/feature-engine.service';
import { DemoSeedService } from './services/demo-seed.service';
import { Exchanges } from './services/exchanges';
import { HealthService } from './services/health.service';
import { ImportService } from './services/import.service';
import { KeysService } from './services/keys.service';
import { FeaturesService } from './services/features.service';
import { MarketDataService } from './services/market-data.service';
import { MarketRepository } from './db/market.repository';
import { AccessService } from './services/access/access.service';
import { MemoryQuotaStore } from './services/quota/memory.quota-store';
import type { QuotaStore } from './services/quota/quota-store';
import { RedisQuotaStore } from './services/quota/redis.quota-store';
import { TierPolicy } from './services/tier-policy';

export const VERSION: string = (() => {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string;
    } catch {
      // keep looking upward
    }
  }
  return '0.0.0';
})();

export interface Services {
  config: Config;
  db: Database;
  exchanges: Exchanges;
  importer: ImportService;
  compute: ComputeService;
  seeder: DemoSeedService;
  keys: KeysService;
  features: FeaturesService;
  market: MarketDataService;
  quality: QualityService;
  health: HealthService;
  quotaStore: QuotaStore;
  tiers: TierPolicy;
  access: AccessService;
  clock: () => number;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Override the PGlite location (tests use 'memory'). */
  dataDir?: string | 'memory';
  /** Apply pending migrations first (default true). */
  migrate?: boolean;
  /** Injected clock (tests of daily quotas); default Date.now. */
  clock?: () => number;
  /** Redis key prefix of the quota counters (tests isolate runs with it). */
  quotaPrefix?: string;
}

export async function openServices(config: Config, opts: OpenOptions = {}): Promise<Services> {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    dataDir: opts.dataDir ?? config.dataDir,
  });
  try {
    if (opts.migrate !== false) await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const clock = opts.clock ?? Date.now;
  const exchanges = new Exchanges(config.exchanges.perp, config.exchanges.spot);
  const featureEngine = new FeatureEngine(db, exchanges);
  const quotaStore: QuotaStore = config.redisUrl
    ? new RedisQuotaStore({ url: config.redisUrl, prefix: opts.quotaPrefix })
    : new MemoryQuotaStore(clock);
  const tiers = new TierPolicy(config.tierLimits, config.upgradeUrl);
  const marketRepo = new MarketRepository(db);
  const market = new MarketDataService(marketRepo, exchanges, tiers, clock);
  const quality = new QualityService(db, exchanges, tiers);
  const access = new AccessService(db, quotaStore, tiers, config.adminToken, clock);
  const health = new HealthService(db, VERSION);
  health.register('rate_limit_store', async () => {
    await quotaStore.ping();
    return { kind: quotaStore.kind };
  });
  return {
    config,
    db,
    exchanges,
    importer: new ImportService(db, exchanges),
    compute: new ComputeService(db, featureEngine, quality),
    quality,
    seeder: new DemoSeedService(db, exchanges, featureEngine),
    keys: new KeysService(db, (hash) => access.invalidate(hash)),
    features: new FeaturesService(marketRepo, market, exchanges, tiers, clock),
    market,
    health,
    quotaStore,
    tiers,
    access,
    clock,
    async close() {
      await quotaStore.close();
      await db.close();
    },
  };
}
