/** Stored Data Quality Scores: one record per series and timeframe, replaced by each run of the job. */
import type { StoredQuality } from '../domain/quality';
import type { CandleTimeframe } from '../domain/timeframe';
import type { QueryOptions, SqlSession } from './database';
import { sqlEpochMs } from './sql';

interface QualityRow {
  series_id: number;
  timeframe: CandleTimeframe;
  computed_at: number;
  dqs: number;
  gap_rate_score: number;
  anomaly_score: number;
  consistency_score: number;
  freshness_score: number;
  expected_candles: number;
  present_candles: number;
  missing: string;
}

export class QualityRepository {
  constructor(private readonly db: SqlSession) {}

  /**
   * SQL rather than Prisma: a Prisma query's first run compiles its plan (in WebAssembly), a
   * cost every short-lived `mds` command paid again for its one quality run.
   */
  async save(seriesId: number, q: StoredQuality): Promise<void> {
    await this.db.query(
      `INSERT INTO quality (series_id, timeframe, computed_at, dqs, gap_rate_score, anomaly_score, consistency_score,
                            freshness_score, expected_candles, present_candles, missing_intervals)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)
       ON CONFLICT (series_id, timeframe) DO UPDATE SET
         computed_at = EXCLUDED.computed_at, dqs = EXCLUDED.dqs, gap_rate_score = EXCLUDED.gap_rate_score,
         anomaly_score = EXCLUDED.anomaly_score, consistency_score = EXCLUDED.consistency_score,
         freshness_score = EXCLUDED.freshness_score, expected_candles = EXCLUDED.expected_candles,
         present_candles = EXCLUDED.present_candles, missing_intervals = EXCLUDED.missing_intervals`,
      [seriesId, q.timeframe, new Date(q.computedAt), q.dqs, q.gapRate, q.anomaly, q.consistency, q.freshness, q.expected, q.present, JSON.stringify(q.missing)],
      { prepare: true },
    );
  }

  /**
   * The stored records of each series (one query for all), in no particular order. SQL rather
   * than Prisma: the API's quality reads run on the read replicas' session, which has no client.
   */
  async ofSeries(ids: readonly number[]): Promise<Map<number, StoredQuality[]>> {
    const rows = ids.length
      ? await this.db.query<QualityRow>(
          `SELECT series_id, timeframe, ${sqlEpochMs('computed_at')} AS computed_at, dqs, gap_rate_score, anomaly_score,
                  consistency_score, freshness_score, expected_candles, present_candles, missing_intervals::text AS missing
           FROM quality WHERE series_id = ANY($1::int[])`,
          [[...ids]],
        )
      : [];
    const out = new Map<number, StoredQuality[]>();
    for (const r of rows) {
      let list = out.get(r.series_id);
      if (!list) out.set(r.series_id, (list = []));
      list.push({
        timeframe: r.timeframe,
        computedAt: r.computed_at,
        dqs: r.dqs,
        gapRate: r.gap_rate_score,
        anomaly: r.anomaly_score,
        consistency: r.consistency_score,
        freshness: r.freshness_score,
        expected: r.expected_candles,
        present: r.present_candles,
        missing: JSON.parse(r.missing) as Array<[number, number]>,
      });
    }
    return out;
  }

  /** When the newest and the oldest records were computed (Unix s); nulls when there are none. */
  async computedRange(opts: QueryOptions): Promise<{ newest: number | null; oldest: number | null }> {
    const [r] = await this.db.query<{ newest: number | null; oldest: number | null }>(
      `SELECT extract(epoch FROM max(computed_at))::float8 AS newest, extract(epoch FROM min(computed_at))::float8 AS oldest FROM quality`,
      [],
      opts,
    );
    return r ?? { newest: null, oldest: null };
  }
}
