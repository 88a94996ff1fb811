/**
 * The periods the time-partitioned tables are ranged by (a month for 1m and 5m, a year for the
 * rest, as `mds_partition_period` in SQL): the partitions' and the write watermarks' unit.
 */
import type { FeatureTimeframe } from '../domain/timeframe';

export type PartitionPeriod = 'month' | 'year';

/** The period of each timeframe's partitions (as `mds_partition_period` in SQL). */
export const PARTITION_PERIOD: Record<FeatureTimeframe, PartitionPeriod> = {
  '1m': 'month',
  '5m': 'month',
  '15m': 'year',
  '1h': 'year',
  '4h': 'year',
  '1d': 'year',
  funding: 'year',
};

/** Start (ms, UTC) of the period of `timeframe`'s partitions that contains `ms`. */
export function periodStart(timeframe: FeatureTimeframe, ms: number): number {
  const d = new Date(ms);
  return PARTITION_PERIOD[timeframe] === 'month' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) : Date.UTC(d.getUTCFullYear(), 0, 1);
}

/** Start of the period after the one starting at `startMs`. */
export function nextPeriod(timeframe: FeatureTimeframe, startMs: number): number {
  const d = new Date(startMs);
  return PARTITION_PERIOD[timeframe] === 'month' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) : Date.UTC(d.getUTCFullYear() + 1, 0, 1);
}
