/**
 * Write watermarks (docs/ARCHITECTURE.md, Read path: Revalidation): every writer moves the
 * watermarks of what it writes (series, timeframe, partition period) in its own transaction, with
 * `moveWatermarks` on its session; a page's watermark is read from the node its rows come from.
 * Versions come from one sequence, so a watermark never returns to a value it had.
 */
import type { FeatureTimeframe } from '../domain/timeframe';
import type { SqlSession } from './database';

/** What a page's rows depend on: these series' rows of these timeframes in [startMs, endMs]. */
export interface WatermarkScope {
  seriesIds: readonly number[];
  timeframes: readonly FeatureTimeframe[];
  startMs: number;
  endMs: number;
}

/** Move the watermarks of `seriesIds` at `timeframe` for every period [fromMs, toMs] touches, in the caller's transaction. */
export async function moveWatermarks(s: Pick<SqlSession, 'query'>, seriesIds: readonly number[], timeframe: FeatureTimeframe, fromMs: number, toMs: number): Promise<void> {
  if (seriesIds.length === 0 || !(fromMs <= toMs)) return;
  await s.query('SELECT mds_move_watermarks($1::int[], $2, $3, $4)', [seriesIds, timeframe, new Date(fromMs), new Date(toMs)], { prepare: true });
}

// The versions of the periods that meet [$3, $4], in key order, after the database's id and the
// epoch: the combination changes whenever any of them moves or a period is first written.
const READ_SQL = `SELECT e.database_id::text || '/' || e.version || '/' || coalesce((
    SELECT string_agg(w.version::text, ',' ORDER BY w.series_id, w.timeframe, w.period_start)
    FROM watermarks w
    WHERE w.series_id = ANY($1::int[]) AND w.timeframe = ANY($2::text[]) AND w.period_start <= $4
      AND w.period_start + ('1 ' || mds_partition_period(w.timeframe))::interval > $3), '') AS mark
  FROM watermark_epoch e`;

export class WatermarksRepository {
  constructor(private readonly db: Pick<SqlSession, 'query'>) {}

  /** The watermark of a page's rows: equal on two reads only if no write touched them between. */
  async read(scope: WatermarkScope): Promise<string> {
    const [r] = await this.db.query<{ mark: string }>(
      READ_SQL,
      [scope.seriesIds, scope.timeframes, new Date(scope.startMs), new Date(scope.endMs)],
      { prepare: true },
    );
    return r.mark;
  }

  /**
   * Move the watermark of every series at `timeframe` in the period starting at `periodStartMs`
   * (retention dropped its partitions).
   */
  async movePeriod(timeframe: FeatureTimeframe, periodStartMs: number): Promise<void> {
    await this.db.query(`SELECT mds_move_watermarks(coalesce(array_agg(id ORDER BY id), '{}'), $1, $2, $2) FROM series`, [timeframe, new Date(periodStartMs)]);
  }

  /** Move the epoch: every page's watermark changes (`mds watermarks bump`, after writes made outside the service). */
  async bumpEpoch(): Promise<string> {
    const [r] = await this.db.query<{ version: string }>(`UPDATE watermark_epoch SET version = nextval('watermark_versions') RETURNING version::text AS version`);
    return r.version;
  }
}
