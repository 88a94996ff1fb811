/**
 * The composition root: the only module that knows every layer. The server and the `mds`
 * CLI both build their services here, so they run the same code over the same storage.
 */
import type { Config } from './config';
import { migrate, MIGRATIONS_DIR } from './db/migrator';
import { openDatabase } from './db/open-database';
import { ReplicaRouter } from './db/replica-router';
import { Store } from './db/store';
import { marketEndpoints, type MarketEndpoints } from './domain/params/market-endpoints';
import { DependencyState, type DependencyEvent } from './domain/dependency-state';
import { Exchanges } from './domain/exchanges';
import { AccessService } from './services/access/access.service';
import { CandlesService } from './services/reads/candles.service';
import { DemoSeedService } from './services/demo/demo-seed.service';
import { DerivativesService } from './services/reads/derivatives.service';
import { FEATURE_CHUNK_BARS, FeaturePrecomputeService, chunkWritersFor } from './services/derived/feature-precompute.service';
import { FeatureReadService } from './services/reads/feature-read.service';
import { FundingService } from './services/reads/funding.service';
import { HealthService, replicaHealth } from './services/runtime/health.service';
import { ImportService } from './services/import/import.service';
import { KeysService } from './services/access/keys.service';
import { MarketsService } from './services/reads/markets.service';
import { PartitionService } from './services/runtime/partition.service';
import { MultiAssetService } from './services/reads/multi-asset.service';
import { QualityService } from './services/derived/quality.service';
import { MemoryQuotaStore } from './services/quota/memory.quota-store';
import type { QuotaStore } from './services/quota/quota-store';
import { RedisQuotaStore } from './services/quota/redis.quota-store';
import { RecomputeService } from './services/derived/recompute.service';
import { TierPolicy } from './services/access/tier-policy';
import { VERSION } from './version';
import { createLogger, type Logger } from './logger';
import { PageTags } from './services/reads/page-tags.service';
import { MemoryTagCache, RedisTagCache, type TagCache } from './services/reads/tag-cache';
import { RedisClients } from './services/runtime/redis-clients';
import { DemoFeedService } from './services/demo/demo-feed.service';
import { LiveWriter, INGEST_POOL_SIZE } from './services/ingest/live-writer';
import { IngestService } from './services/ingest/ingest.service';
import type { LiveSettings } from './services/ingest/live-session';
import { parseSince } from './domain/ingest-settings';
import { IngestStatus } from './services/ingest/ingest-status';
import { Metrics } from './services/runtime/metrics';
import { createVenueAdapters } from './venues/registry';
import { EventPublisher } from './services/events/event-publisher';
import { MemoryEventBus, type EventBus } from './services/events/market-events';
import { RedisEventBus } from './services/events/redis.event-bus';

export interface Services {
  config: Config;
  store: Store;
  exchanges: Exchanges;
  endpoints: MarketEndpoints;
  tiers: TierPolicy;
  quotaStore: QuotaStore;
  access: AccessService;
  keys: KeysService;
  candles: CandlesService;
  derivatives: DerivativesService;
  funding: FundingService;
  multiAsset: MultiAssetService;
  markets: MarketsService;
  features: FeatureReadService;
  /** The fast 304: tags remembered at their pages' write watermarks (Redis with Redis configured, else memory). */
  tags: PageTags;
  quality: QualityService;
  /** Time partitions: periods ahead and retention (RETENTION_*). */
  partitions: PartitionService;
  featurePrecompute: FeaturePrecomputeService;
  recompute: RecomputeService;
  importer: ImportService;
  seeder: DemoSeedService;
  health: HealthService;
  metrics: Metrics;
  /** The write path of live data (ingestion, the demo feed). */
  writer: LiveWriter;
  ingest: IngestService;
  ingestStatus: IngestStatus;
  demoFeed: DemoFeedService;
  /** Market events after every commit (GraphQL subscriptions): Redis pub/sub with Redis configured, else in process. */
  events: { bus: EventBus; publisher: EventPublisher };
  logger: Logger;
  clock: () => number;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Override the PGlite location (tests use 'memory'). */
  dataDir?: string | 'memory';
  /** Apply pending migrations first (default true). */
  migrate?: boolean;
  /** Injected clock (tests of quotas and of the data's `now`); default Date.now. */
  clock?: () => number;
  /** Redis key prefix of the quota counters (tests isolate runs with it). */
  quotaPrefix?: string;
  /** Redis channel prefix of the market events (default `mds:`; tests isolate runs with it, or share it with a server process). */
  eventPrefix?: string;
  /** Where services log (default: JSON to stdout at LOG_LEVEL). */
  logger?: Logger;
  /**
   * Serve the data reads from DATABASE_REPLICA_URLS when set (default true). The `mds` commands
   * write, so they open no replica pools.
   */
  readReplicas?: boolean;
  /** PGlite: a process that bulk-loads and exits (the first start's seed) gets PostgreSQL's default buffer pool. */
  bulkLoad?: boolean;
}

/** A dependency's outage in the log: a warning when it starts, a line when it ends. */
function logDependency(logger: Logger): (e: DependencyEvent) => void {
  return (e) =>
    e.kind === 'down'
      ? logger.warn({ dependency: e.dependency, error: e.error }, 'dependency unreachable')
      : logger.info({ dependency: e.dependency, failures: e.failures, down_ms: e.downMs }, 'dependency reachable again');
}

/** The live-ingestion settings of the configuration, the backfill start resolved against `nowMs`. */
export function liveSettings(config: Config, nowMs: number): LiveSettings {
  const c = config.ingest;
  return { sinceMs: parseSince(c.since, nowMs), reconcileCandles: c.reconcileCandles, repairIntervalMs: c.repairIntervalMs, fundingDelayMs: c.fundingDelayMs };
}

export async function openServices(config: Config, opts: OpenOptions = {}): Promise<Services> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const databaseHealth = new DependencyState('database', logDependency(logger));
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    dataDir: opts.dataDir ?? config.dataDir,
    health: databaseHealth,
    bulkLoad: opts.bulkLoad,
    fromTemplate: opts.migrate !== false,
  });
  try {
    if (opts.migrate !== false) await migrate(db, MIGRATIONS_DIR, config.databaseEngine);
  } catch (err) {
    await db.close();
    throw err;
  }
  // Read replicas: pools of their own and a poll of their positions (src/db/replica-router.ts);
  // only the read services get them, through store.routed.
  const replicas =
    db.kind === 'postgres' && config.databaseUrl && config.databaseReplicaUrls.length && opts.readReplicas !== false
      ? new ReplicaRouter(db, {
          primaryUrl: config.databaseUrl,
          primaryLocator: db.locator,
          urls: config.databaseReplicaUrls,
          maxLagMs: config.replicaMaxLagMs,
          poolSize: config.databasePoolSize,
          connectTimeoutMs: config.databaseConnectTimeoutMs,
          queryTimeoutMs: config.databaseQueryTimeoutMs,
        })
      : undefined;
  replicas?.start();
  const store = new Store(db, replicas, config.databaseEngine);
  // Ingestion on PostgreSQL has a pool of its own (pg connects on first use: nothing is opened
  // where nothing ingests): an API burst never delays live data, and ingestion never takes the
  // API's connections. PGlite has one connection either way.
  const ingestStore =
    db.kind === 'postgres'
      ? new Store(
          await openDatabase({
            databaseUrl: config.databaseUrl,
            poolSize: INGEST_POOL_SIZE,
            connectTimeoutMs: config.databaseConnectTimeoutMs,
            queryTimeoutMs: config.databaseQueryTimeoutMs,
            dataDir: 'memory',
            health: databaseHealth,
            locator: db.locator,
          }),
          undefined,
          config.databaseEngine,
        )
      : store;
  const clock = opts.clock ?? Date.now;
  const exchanges = new Exchanges(config.exchanges.perp, config.exchanges.spot);
  const endpoints = marketEndpoints(exchanges);
  const tiers = new TierPolicy(config.tierLimits, config.upgradeUrl);
  // Quotas and events share one view of Redis: its outage is logged once, not per client or attempt.
  const redis = config.redis ? new RedisClients(config.redis, new DependencyState('redis', logDependency(logger))) : undefined;
  const quotaStore: QuotaStore = redis ? new RedisQuotaStore({ clients: redis, prefix: opts.quotaPrefix }) : new MemoryQuotaStore(clock);
  const access = new AccessService(store.keys, quotaStore, tiers, config.adminToken, clock);
  const tagCache: TagCache = redis ? new RedisTagCache(redis, `${opts.quotaPrefix ?? 'mds:'}etag:`) : new MemoryTagCache();
  const tags = new PageTags(store.routed.watermarks, tagCache, store.watermarks);
  const bus: EventBus = redis
    ? new RedisEventBus({ clients: redis, prefix: opts.eventPrefix ?? opts.quotaPrefix, onError: (err) => logger.warn({ err }, 'event bus: a message that is not an event') })
    : new MemoryEventBus();
  // Read-your-writes: the commit position of every event this process hears keeps its reads on
  // the primary until the replicas have replayed it (the ones it publishes: EventPublisher).
  if (replicas) bus.listen((e) => store.readAfter(e.lsn));
  const publisher = new EventPublisher({
    bus,
    store,
    exchanges,
    clock,
    onError: (err) => logger.warn({ err }, 'an event was not published'),
    onPublished: (e) => metrics.published(e.type),
  });
  const quality = new QualityService({
    endpoint: endpoints.quality,
    exchanges,
    series: store.series,
    candles: store.candles,
    quality: store.quality,
    ingest: store.ingest,
    locks: store.locks,
    routed: store.routed,
    tiers,
    clock,
    onChanged: (seriesId, records) => void publisher.qualityChanged(seriesId, records),
  });
  const featurePrecompute = new FeaturePrecomputeService(store, exchanges, FEATURE_CHUNK_BARS, chunkWritersFor(config.databasePoolSize));
  const metrics = new Metrics(async (timeoutMs) => {
    const [features, quality] = await Promise.all([store.features.freshness({ timeoutMs }), store.quality.computedRange({ timeoutMs })]);
    return { features, quality };
  });
  const ingestStatus = new IngestStatus(clock);
  metrics.ingestLags(() => ingestStatus.lags());
  // The writer runs the precompute inside its own transactions (on ingestStore's connections).
  const writer = new LiveWriter(
    ingestStore,
    featurePrecompute,
    clock,
    (s) => {
      metrics.stored(s);
      void publisher.candlesStored(s.seriesId, s.timeframe, s.first, s.last);
    },
    (f) => void publisher.fundingStored(f.seriesId, f.first, f.last),
    (d) => void publisher.derivativesStored(d.seriesId, d.first, d.last),
  );
  const health = new HealthService(store, VERSION);
  health.register('rate_limit_store', async () => {
    await quotaStore.ping();
    return { kind: quotaStore.kind };
  });
  if (replicas) {
    // Replicas out of the rotation show here; reads fall back to the primary, so never a 503.
    health.register('replicas', async () => replicaHealth(store.replicaStats()!), { critical: false });
    metrics.replicaStats(() => store.replicaStats());
  }
  if (config.ingest.symbols.length) {
    // Ingestion problems show here; they never make /health a 503 (docs/DECISIONS.md).
    health.register('ingest', async () => ({ role: ingestStatus.role, venues: ingestStatus.venues() }), { critical: false });
  }
  return {
    config,
    store,
    exchanges,
    endpoints,
    tiers,
    quotaStore,
    access,
    keys: new KeysService(store.keys, (hash) => access.forget(hash)),
    candles: new CandlesService(endpoints.ohlcv, store.routed.series, store.routed.candles, tiers, clock),
    derivatives: new DerivativesService(endpoints.derivatives, store.routed.series, store.routed.derivatives, tiers, clock),
    funding: new FundingService(endpoints.funding, exchanges, store.routed.series, store.routed.funding, tiers, clock),
    multiAsset: new MultiAssetService(endpoints.multiAsset, exchanges, store.routed.series, store.routed.multiAsset, tiers, clock),
    markets: new MarketsService(endpoints, store.routed.series, store.routed.candles, store.routed.ingest, clock),
    features: new FeatureReadService(endpoints.features, store.routed.series, store.routed.features, tiers, clock),
    tags,
    quality,
    partitions: new PartitionService(store.partitions, store.locks, config.retentionMs),
    featurePrecompute,
    recompute: new RecomputeService(store, featurePrecompute, quality, publisher),
    importer: new ImportService(store, exchanges),
    seeder: new DemoSeedService(store, exchanges, featurePrecompute),
    health,
    metrics,
    writer,
    ingest: new IngestService({
      store: ingestStore,
      exchanges,
      adapters: createVenueAdapters(config.ingest, metrics, clock),
      writer,
      quality,
      status: ingestStatus,
      clock,
      log: logger,
    }),
    ingestStatus,
    demoFeed: new DemoFeedService(store, exchanges, writer, clock),
    events: { bus, publisher },
    logger,
    clock,
    async close() {
      await publisher.drain();
      await bus.close();
      await quotaStore.close();
      await tagCache.close();
      if (ingestStore !== store) await ingestStore.close();
      await store.close();
    },
  };
}
