/**
 * The composition root: the only module that knows every layer. The server and the `mds`
 * CLI both build their services here, so they run the same code over the same storage.
 * `openServices` runs the builders of src/composition/ in dependency order: storage, what Redis
 * shares, the runtime's services, the event publisher, the reads, the live write path.
 */
import type { Config } from './config';
import type { Store } from './db/store';
import type { MarketEndpoints } from './domain/params/market-endpoints';
import type { DependencyEvent } from './domain/dependency-state';
import { Exchanges } from './domain/exchanges';
import type { AccessService } from './services/access/access.service';
import type { CandlesService } from './services/reads/candles.service';
import type { DemoSeedService } from './services/demo/demo-seed.service';
import type { DerivativesService } from './services/reads/derivatives.service';
import type { FeaturePrecomputeService } from './services/derived/feature-precompute.service';
import type { FeatureReadService } from './services/reads/feature-read.service';
import type { FundingService } from './services/reads/funding.service';
import type { HealthService } from './services/runtime/health.service';
import type { ImportService } from './services/import/import.service';
import type { KeysService } from './services/access/keys.service';
import type { MarketsService } from './services/reads/markets.service';
import type { PartitionService } from './services/runtime/partition.service';
import type { MultiAssetService } from './services/reads/multi-asset.service';
import type { QualityService } from './services/derived/quality.service';
import type { QuotaStore } from './services/quota/quota-store';
import type { RecomputeService } from './services/derived/recompute.service';
import type { TierPolicy } from './services/access/tier-policy';
import { createLogger, type Logger } from './logger';
import type { PageTags } from './services/reads/page-tags.service';
import type { ResponseCache } from './services/reads/response-cache';
import type { DemoFeedService } from './services/demo/demo-feed.service';
import type { LiveWriter } from './services/ingest/live-writer';
import type { IngestService } from './services/ingest/ingest.service';
import type { LiveSettings } from './services/ingest/live-session';
import { parseSince } from './domain/ingest-settings';
import type { IngestStatus } from './services/ingest/ingest-status';
import type { Metrics } from './services/runtime/metrics';
import type { EventPublisher } from './services/events/event-publisher';
import type { EventBus } from './services/events/market-events';
import { eventPublisher, liveWritePath } from './composition/live';
import { readServices } from './composition/reads';
import { runtimeServices } from './composition/runtime';
import { openSharedRedis } from './composition/shared-redis';
import { openStorage } from './composition/storage';

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
  /** Small pages from memory while the watermarks' moves are heard (the server follows them). */
  responses: ResponseCache;
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
  const onOutage = logDependency(logger);
  const clock = opts.clock ?? Date.now;
  const storage = await openStorage(config, opts, onOutage);
  const { store } = storage;
  const exchanges = new Exchanges(config.exchanges.served, config.exchanges.names);
  const shared = openSharedRedis({ config, opts, storage, logger, onOutage, clock });
  const { quotaStore, tagCache, bus } = shared;
  const runtime = runtimeServices({ config, storage, quotaStore, clock });
  const { metrics, ingestStatus } = runtime;
  const publisher = eventPublisher({ bus, store, exchanges, metrics, logger, clock });
  const reads = readServices({ config, store, exchanges, quotaStore, tagCache, publisher, clock });
  metrics.responseCacheStats(() => ({ live: reads.responses.live, bytes: reads.responses.size.bytes, hits: reads.responses.hits }));
  const live = liveWritePath({ config, storage, exchanges, publisher, quality: reads.quality, metrics, ingestStatus, logger, clock });
  return {
    config,
    store,
    exchanges,
    endpoints: reads.endpoints,
    tiers: reads.tiers,
    quotaStore,
    access: reads.access,
    keys: reads.keys,
    candles: reads.candles,
    derivatives: reads.derivatives,
    funding: reads.funding,
    multiAsset: reads.multiAsset,
    markets: reads.markets,
    features: reads.features,
    tags: reads.tags,
    responses: reads.responses,
    quality: reads.quality,
    partitions: runtime.partitions,
    featurePrecompute: live.featurePrecompute,
    recompute: live.recompute,
    importer: live.importer,
    seeder: live.seeder,
    health: runtime.health,
    metrics,
    writer: live.writer,
    ingest: live.ingest,
    ingestStatus,
    demoFeed: live.demoFeed,
    events: { bus, publisher },
    logger,
    clock,
    // Writers' events first, while the bus is open; the databases last.
    async close() {
      await publisher.drain();
      await shared.close();
      await storage.close();
    },
  };
}
