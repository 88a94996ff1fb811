/**
 * The partition schedule inside the server: once right after start, then every hour (periods
 * ahead and retention: src/services/partition.service.ts). Only one instance works at a time;
 * a failed run is logged and the next one comes on schedule.
 */
import type { Logger } from '../logger';
import type { Metrics } from '../services/runtime/metrics';
import type { PartitionService } from '../services/runtime/partition.service';
import { startJobSchedule } from './schedule';

export const PARTITION_JOB_INTERVAL_MS = 3_600_000;

export function startPartitionSchedule(partitions: PartitionService, logger: Logger, clock: () => number, metrics?: Metrics, atOnce = true): () => Promise<void> {
  return startJobSchedule({
    job: 'partitions',
    name: 'partition job',
    intervalMs: PARTITION_JOB_INTERVAL_MS,
    run: () => partitions.runExclusive(clock()),
    // A line only when a run changed something (the hourly run usually finds everything in place).
    report: (out) => (out.created > 0 || out.dropped.length > 0 ? { created: out.created, dropped: out.dropped } : null),
    logger,
    metrics,
    atOnce,
  });
}
