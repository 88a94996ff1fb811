/**
 * The quality schedule inside the server: once right after start, then every
 * QUALITY_INTERVAL. Only one instance works at a time (advisory lock in the service); a
 * failed run is logged and the next one comes on schedule.
 */
import type { Logger } from '../logger';
import type { Metrics } from '../services/runtime/metrics';
import type { QualityService } from '../services/derived/quality.service';
import { startJobSchedule } from './schedule';

export function startQualitySchedule(
  quality: QualityService,
  intervalMs: number,
  logger: Logger,
  clock: () => number,
  metrics?: Metrics,
  atOnce = true,
): () => Promise<void> {
  return startJobSchedule({
    job: 'quality',
    name: 'quality job',
    intervalMs,
    run: () => quality.runExclusive(clock()),
    report: (records) => ({ records }),
    logger,
    metrics,
    atOnce,
  });
}
