/** Stored Data Quality Scores: one record per series and timeframe, replaced by each run of the job. */
import type { StoredQuality } from '../domain/quality';
import type { CandleTimeframe } from '../domain/timeframe';
import type { PrismaClient } from './generated/prisma/client';
import type { QueryOptions, SqlSession } from './database';

export class QualityRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly db: SqlSession,
  ) {}

  async save(seriesId: number, q: StoredQuality): Promise<void> {
    const data = {
      computedAt: new Date(q.computedAt),
      dqs: q.dqs,
      gapRateScore: q.gapRate,
      anomalyScore: q.anomaly,
      consistencyScore: q.consistency,
      freshnessScore: q.freshness,
      expectedCandles: q.expected,
      presentCandles: q.present,
      missingIntervals: q.missing,
    };
    await this.prisma.qualityRecord.upsert({
      where: { seriesId_timeframe: { seriesId, timeframe: q.timeframe } },
      create: { seriesId, timeframe: q.timeframe, ...data },
      update: data,
    });
  }

  /** The stored records of each series (one query for all), in no particular order. */
  async ofSeries(ids: readonly number[]): Promise<Map<number, StoredQuality[]>> {
    const rows = ids.length ? await this.prisma.qualityRecord.findMany({ where: { seriesId: { in: [...ids] } } }) : [];
    const out = new Map<number, StoredQuality[]>();
    for (const r of rows) {
      let list = out.get(r.seriesId);
      if (!list) out.set(r.seriesId, (list = []));
      list.push({
        timeframe: r.timeframe as CandleTimeframe,
        computedAt: r.computedAt.getTime(),
        dqs: r.dqs,
        gapRate: r.gapRateScore,
        anomaly: r.anomalyScore,
        consistency: r.consistencyScore,
        freshness: r.freshnessScore,
        expected: r.expectedCandles,
        present: r.presentCandles,
        missing: r.missingIntervals as Array<[number, number]>,
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
