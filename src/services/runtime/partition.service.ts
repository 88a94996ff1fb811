/**
 * The partition job's work (src/jobs/partition.job.ts, `mds partitions`): the current period
 * and the next two of every timeframe's partitions, so that live writes never wait for one;
 * fresh planner statistics for the current ones (where live writes go); then retention, which drops the partitions of candles, features and derivatives of a timeframe that
 * ended more than its RETENTION_<TF> ago. Coarser timeframes are rolled-up candles of their
 * own: dropping 1m leaves them whole. /v1/markets reports coverage from the stored rows, so
 * it moves with the drop.
 */
import type { Locks } from '../../db/locks.repository';
import { nextPeriod, periodStart, type PartitionInfo, type Partitions } from '../../db/partitions';
import { CANDLE_TIMEFRAMES, FEATURE_TIMEFRAMES, type CandleTimeframe } from '../../domain/timeframe';

/** Periods kept ready after the current one. */
export const PERIODS_AHEAD = 2;

export interface PartitionRun {
  /** Partitions created (every table). */
  created: number;
  /** Partitions dropped by retention, by name. */
  dropped: string[];
}

export class PartitionService {
  constructor(
    private readonly partitions: Partitions,
    private readonly locks: Locks,
    private readonly retentionMs: Partial<Record<CandleTimeframe, number>>,
  ) {}

  /** One run; null when another instance is running it. */
  runExclusive(nowMs: number): Promise<PartitionRun | null> {
    return this.locks.tryWithLock('partitionJob', () => this.run(nowMs));
  }

  async run(nowMs: number): Promise<PartitionRun> {
    let created = 0;
    for (const timeframe of FEATURE_TIMEFRAMES) {
      let last = periodStart(timeframe, nowMs);
      for (let i = 0; i < PERIODS_AHEAD; i++) last = nextPeriod(timeframe, last);
      created += await this.partitions.ensure([{ timeframe, fromMs: nowMs, toMs: last }]);
    }
    await this.partitions.analyzeSpan(['candles', 'features', 'derivatives'], nowMs, nowMs);
    const dropped: string[] = [];
    for (const timeframe of CANDLE_TIMEFRAMES) {
      const keep = this.retentionMs[timeframe];
      if (keep !== undefined) dropped.push(...(await this.partitions.dropBefore(timeframe, nowMs - keep)));
    }
    return { created, dropped };
  }

  list(): Promise<PartitionInfo[]> {
    return this.partitions.list();
  }
}
