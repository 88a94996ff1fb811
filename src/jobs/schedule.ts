/**
 * The one shape of the server's periodic jobs: a run at once, then `intervalMs` after each run
 * ended (never overlapping; `repeat`). A run answers null when another instance holds the job's
 * lock: counted as `skipped` and logged at debug level. Every run is counted in /metrics by
 * outcome (`mds_job_runs_total{job}`); a failure is logged as an error and the next run comes
 * on schedule. `stop()` waits for a run in progress.
 */
import type { Logger } from '../logger';
import type { Metrics } from '../services/runtime/metrics';
import { repeat } from '../services/runtime/repeat';

export interface JobSchedule<T> {
  /** The job's label in /metrics (`quality`, `partitions`). */
  job: string;
  /** How the logs name it (`quality job`). */
  name: string;
  intervalMs: number;
  /** One run; null: skipped, another instance holds the lock. */
  run: () => Promise<T | null>;
  /** What a finished run logs at info level (with its duration); null: nothing worth a line. */
  report: (out: T) => Record<string, unknown> | null;
  logger: Logger;
  metrics?: Metrics;
  /** The first run at once (default), or one interval after the start (the run was just done by another process). */
  atOnce?: boolean;
}

export function startJobSchedule<T>(schedule: JobSchedule<T>): () => Promise<void> {
  const work = async () => {
    const started = performance.now();
    try {
      const out = await schedule.run();
      const ms = performance.now() - started;
      schedule.metrics?.jobRun(schedule.job, out === null ? 'skipped' : 'ok', ms / 1000);
      if (out === null) {
        schedule.logger.debug(`${schedule.name} skipped: another instance holds the lock`);
        return;
      }
      const fields = schedule.report(out);
      if (fields) schedule.logger.info({ ...fields, duration_ms: Math.round(ms) }, `${schedule.name} done`);
    } catch (err) {
      schedule.metrics?.jobRun(schedule.job, 'error', (performance.now() - started) / 1000);
      schedule.logger.error({ err }, `${schedule.name} failed`);
    }
  };
  return repeat(work, () => schedule.intervalMs, { immediately: schedule.atOnce ?? true });
}
