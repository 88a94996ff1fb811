/**
 * The write path of live and bulk data: the event publisher every writer calls after its commit,
 * the feature precompute, the live writer, ingestion, the demo feed, recompute, import and seed.
 */
import type { Config } from '../config';
import type { Store } from '../db/store';
import type { Exchanges } from '../domain/exchanges';
import type { Logger } from '../logger';
import { DemoFeedService } from '../services/demo/demo-feed.service';
import { DemoSeedService } from '../services/demo/demo-seed.service';
import { FEATURE_CHUNK_BARS, FeaturePrecomputeService, chunkWritersFor } from '../services/derived/feature-precompute.service';
import type { QualityService } from '../services/derived/quality.service';
import { RecomputeService } from '../services/derived/recompute.service';
import { EventPublisher } from '../services/events/event-publisher';
import type { EventBus } from '../services/events/market-events';
import { ImportService } from '../services/import/import.service';
import { IngestService } from '../services/ingest/ingest.service';
import type { IngestStatus } from '../services/ingest/ingest-status';
import { LiveWriter } from '../services/ingest/live-writer';
import type { Metrics } from '../services/runtime/metrics';
import { createVenueAdapters } from '../venues/registry';
import type { Storage } from './storage';

export interface PublisherDeps {
  bus: EventBus;
  store: Store;
  exchanges: Exchanges;
  metrics: Metrics;
  logger: Logger;
  clock: () => number;
}

/** Built before the reads: QualityService publishes the records it stores through it too. */
export function eventPublisher({ bus, store, exchanges, metrics, logger, clock }: PublisherDeps): EventPublisher {
  return new EventPublisher({
    bus,
    store,
    exchanges,
    clock,
    onError: (err) => logger.warn({ err }, 'an event was not published'),
    onPublished: (e) => metrics.published(e.type),
  });
}

export interface LiveWritePath {
  featurePrecompute: FeaturePrecomputeService;
  writer: LiveWriter;
  ingest: IngestService;
  demoFeed: DemoFeedService;
  recompute: RecomputeService;
  importer: ImportService;
  seeder: DemoSeedService;
}

export interface LiveWriteDeps {
  config: Config;
  storage: Pick<Storage, 'store' | 'ingestStore'>;
  exchanges: Exchanges;
  publisher: EventPublisher;
  quality: QualityService;
  metrics: Metrics;
  ingestStatus: IngestStatus;
  logger: Logger;
  clock: () => number;
}

export function liveWritePath(deps: LiveWriteDeps): LiveWritePath {
  const { config, storage, exchanges, publisher, quality, metrics, clock } = deps;
  const { store, ingestStore } = storage;
  const featurePrecompute = new FeaturePrecomputeService(store, exchanges, FEATURE_CHUNK_BARS, chunkWritersFor(config.databasePoolSize));
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
  const ingest = new IngestService({
    store: ingestStore,
    exchanges,
    ingested: config.ingest.exchanges,
    adapters: createVenueAdapters(
      config.ingest,
      exchanges.list.map((e) => e.venue),
      metrics,
      clock,
    ),
    writer,
    quality,
    status: deps.ingestStatus,
    clock,
    log: deps.logger,
  });
  const demoFeed = new DemoFeedService(store, exchanges, writer, clock);
  const recompute = new RecomputeService(store, featurePrecompute, quality, publisher);
  const importer = new ImportService(store, exchanges);
  const seeder = new DemoSeedService(store, exchanges, featurePrecompute);
  return { featurePrecompute, writer, ingest, demoFeed, recompute, importer, seeder };
}
