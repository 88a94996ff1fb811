/**
 * What operators read and run: /metrics, /health (its checks registered here), the ingestion
 * report both show, and the time partitions' upkeep.
 */
import type { Config } from '../config';
import { IngestStatus } from '../services/ingest/ingest-status';
import type { QuotaStore } from '../services/quota/quota-store';
import { HealthService, replicaHealth } from '../services/runtime/health.service';
import { Metrics } from '../services/runtime/metrics';
import { PartitionService } from '../services/runtime/partition.service';
import { VERSION } from '../version';
import type { Storage } from './storage';

export interface RuntimeServices {
  metrics: Metrics;
  health: HealthService;
  ingestStatus: IngestStatus;
  partitions: PartitionService;
}

export interface RuntimeDeps {
  config: Config;
  storage: Pick<Storage, 'store' | 'replicas'>;
  quotaStore: QuotaStore;
  clock: () => number;
}

export function runtimeServices({ config, storage, quotaStore, clock }: RuntimeDeps): RuntimeServices {
  const { store, replicas } = storage;
  const metrics = new Metrics(async (timeoutMs) => {
    const [features, quality] = await Promise.all([store.features.freshness({ timeoutMs }), store.quality.computedRange({ timeoutMs })]);
    return { features, quality };
  });
  const ingestStatus = new IngestStatus(clock);
  metrics.ingestLags(() => ingestStatus.lags());
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
  const partitions = new PartitionService(store.partitions, store.locks, config.retentionMs);
  return { metrics, health, ingestStatus, partitions };
}
