/**
 * The partition schedule inside the server: once right after start, then every hour (periods
 * ahead and retention: src/services/partition.service.ts). Only one instance works at a time;
 * a failed run is logged and the next one comes on schedule.
 */
import type { Logger } from '../logger';
import type { Metrics } from '../services/metrics';
import type { PartitionService } from '../services/partition.service';
import { repeat } from '../services/repeat';

export const PARTITION_JOB_INTERVAL_MS = 3_600_000;

export function startPartitionSchedule(partitions: PartitionService, logger: Logger, clock: () => number, metrics?: Metrics): () => Promise<void> {
  const run = async () => {
    const started = performance.now();
    try {
      const out = await partitions.runExclusive(clock());
      const ms = performance.now() - started;
      metrics?.jobRun('partitions', out === null ? 'skipped' : 'ok', ms / 1000);
      if (out === null) logger.debug('partition job skipped: another instance holds the lock');
      else if (out.created > 0 || out.dropped.length > 0) logger.info({ created: out.created, dropped: out.dropped, duration_ms: Math.round(ms) }, 'partition job done');
    } catch (err) {
      metrics?.jobRun('partitions', 'error', (performance.now() - started) / 1000);
      logger.error({ err }, 'partition job failed');
    }
  };
  return repeat(run, () => PARTITION_JOB_INTERVAL_MS, { immediately: true });
}
