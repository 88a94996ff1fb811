/**
 * The quality schedule inside the server: once right after start, then every
 * QUALITY_INTERVAL. Only one instance works at a time (advisory lock in the service); a
 * failed run is logged and the next one comes on schedule.
 */
import type { Logger } from '../logger';
import type { Metrics } from '../services/metrics';
import type { QualityService } from '../services/quality.service';
import { repeat } from '../services/repeat';

export function startQualitySchedule(
  quality: QualityService,
  intervalMs: number,
  logger: Logger,
  clock: () => number,
  metrics?: Metrics,
): () => Promise<void> {
  const run = async () => {
    const started = performance.now();
    try {
      const n = await quality.runExclusive(clock());
      const ms = performance.now() - started;
      metrics?.jobRun('quality', n === null ? 'skipped' : 'ok', ms / 1000);
      if (n === null) logger.debug('quality job skipped: another instance holds the lock');
      else logger.info({ records: n, duration_ms: Math.round(ms) }, 'quality job done');
    } catch (err) {
      metrics?.jobRun('quality', 'error', (performance.now() - started) / 1000);
      logger.error({ err }, 'quality job failed');
    }
  };
  return repeat(run, () => intervalMs, { immediately: true });
}
