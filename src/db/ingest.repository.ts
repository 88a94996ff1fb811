/**
 * What ingestion keeps beside the candles: the known venue gaps (candle slots and funding hours
 * a venue does not have, never asked for again, candle ones counted as missing by the quality
 * score), the slots and hours still missing in stored history (what gap repair asks the venue
 * for), and the status the ingesting process reports for each series it follows.
 */
import { FUNDING_INTERVAL_MS, TIMEFRAME_MS, slotRuns, type CandleTimeframe, type Span } from '../domain/timeframe';
import type { SqlSession } from './database';
import { sqlEpochMs } from './sql';

/** What venue gaps are kept for: a candle timeframe, or the funding hours. */
export type GapTimeframe = CandleTimeframe | 'funding';

export interface IngestStatusRow {
  seriesId: number;
  connected: boolean;
  reportedAt: number;
}

export class IngestRepository {
  constructor(private readonly db: SqlSession) {}

  /** Record slots the venue does not have; overlapping and adjacent records stay separate rows (cheap, rare). */
  async recordGaps(seriesId: number, timeframe: GapTimeframe, spans: readonly Span[]): Promise<void> {
    if (spans.length === 0) return;
    await this.db.query(
      `INSERT INTO venue_gaps (series_id, timeframe, start_time, end_time)
       SELECT $1, $2, to_timestamp(s / 1000.0), to_timestamp(e / 1000.0) FROM unnest($3::int8[], $4::int8[]) AS g(s, e)
       ON CONFLICT (series_id, timeframe, start_time) DO UPDATE SET end_time = greatest(venue_gaps.end_time, EXCLUDED.end_time)`,
      [seriesId, timeframe, spans.map((s) => s[0]), spans.map((s) => s[1])],
    );
  }

  /** Known venue gaps of a series and timeframe overlapping [fromMs, toMs), ascending. */
  async gaps(seriesId: number, timeframe: GapTimeframe, fromMs: number, toMs: number): Promise<Span[]> {
    const rows = await this.db.query<{ s: number; e: number }>(
      `SELECT ${sqlEpochMs('start_time')} AS s, ${sqlEpochMs('end_time')} AS e FROM venue_gaps
       WHERE series_id = $1 AND timeframe = $2 AND end_time > $3 AND start_time < $4 ORDER BY start_time`,
      [seriesId, timeframe, new Date(fromMs), new Date(toMs)],
    );
    return rows.map((r) => [r.s, r.e]);
  }

  /** Open time of the earliest known venue gap of a series and timeframe (null: none). */
  async firstGap(seriesId: number, timeframe: CandleTimeframe): Promise<number | null> {
    const [r] = await this.db.query<{ t: number | null }>(
      `SELECT ${sqlEpochMs('min(start_time)')} AS t FROM venue_gaps WHERE series_id = $1 AND timeframe = $2`,
      [seriesId, timeframe],
    );
    return r.t;
  }

  /**
   * Runs of slots in [fromMs, toMs] with neither a stored candle nor a known venue gap, the
   * oldest first, at most `limit` slots in all.
   */
  async missing(seriesId: number, timeframe: CandleTimeframe, fromMs: number, toMs: number, limit: number): Promise<Span[]> {
    const p = TIMEFRAME_MS[timeframe];
    const rows = await this.db.query<{ t: number }>(
      `SELECT ${sqlEpochMs('g.t')} AS t
       FROM generate_series($3::timestamptz, $4::timestamptz, $5::interval) AS g(t)
       WHERE NOT EXISTS (SELECT 1 FROM candles c WHERE c.series_id = $1 AND c.timeframe = $2 AND c.time = g.t)
         AND NOT EXISTS (SELECT 1 FROM venue_gaps v WHERE v.series_id = $1 AND v.timeframe = $2 AND g.t >= v.start_time AND g.t < v.end_time)
       ORDER BY g.t LIMIT $6`,
      [seriesId, timeframe, new Date(fromMs), new Date(toMs), `${p / 1000} seconds`, limit],
    );
    return slotRuns(rows.map((r) => r.t), p);
  }

  /**
   * Settlements missing between the first and the newest stored rate of a series, neither
   * stored nor known venue gaps, the oldest first, at most `limit`: where two rows are further
   * apart than the later one's interval, the slots at that interval between them. Each is
   * [its hour, the hour plus its interval).
   */
  async missingFunding(seriesId: number, limit: number): Promise<Span[]> {
    const rows = await this.db.query<{ t: number; h: number }>(
      `SELECT ${sqlEpochMs('g.t')} AS t, r.interval_hours AS h
       FROM (
         SELECT time, interval_hours, lag(time) OVER (ORDER BY time) AS prev FROM funding_rates WHERE series_id = $1
       ) r
       CROSS JOIN LATERAL generate_series(r.prev + make_interval(hours => r.interval_hours), r.time - interval '1 hour', make_interval(hours => r.interval_hours)) AS g(t)
       WHERE r.prev IS NOT NULL AND r.time - r.prev > make_interval(hours => r.interval_hours)
         AND NOT EXISTS (SELECT 1 FROM venue_gaps v WHERE v.series_id = $1 AND v.timeframe = 'funding' AND g.t >= v.start_time AND g.t < v.end_time)
       ORDER BY g.t LIMIT $2`,
      [seriesId, limit],
    );
    return rows.map((r) => [Number(r.t), Number(r.t) + r.h * FUNDING_INTERVAL_MS]);
  }

  /** Report the connection state of the series being followed, now. */
  async reportStatus(rows: ReadonlyArray<{ seriesId: number; connected: boolean }>, at: number): Promise<void> {
    if (rows.length === 0) return;
    await this.db.query(
      `INSERT INTO ingest_status (series_id, connected, reported_at)
       SELECT s, c, $3 FROM unnest($1::int[], $2::bool[]) AS r(s, c)
       ON CONFLICT (series_id) DO UPDATE SET connected = EXCLUDED.connected, reported_at = EXCLUDED.reported_at`,
      [rows.map((r) => r.seriesId), rows.map((r) => r.connected), new Date(at)],
    );
  }

  /** The last report per series, with the open time of its newest 1m candle that closed by `now`. */
  async status(ids: readonly number[], now: Date): Promise<Map<number, IngestStatusRow & { lastClosed: number | null }>> {
    const rows = await this.db.query<IngestStatusRow & { lastClosed: number | null }>(
      `SELECT i.series_id AS "seriesId", i.connected, ${sqlEpochMs('i.reported_at')} AS "reportedAt",
              ${sqlEpochMs(`(SELECT time FROM candles c WHERE c.series_id = i.series_id AND c.timeframe = '1m'
                              AND c.time + interval '1 minute' <= $2 ORDER BY time DESC LIMIT 1)`)} AS "lastClosed"
       FROM ingest_status i WHERE i.series_id = ANY($1::int[])`,
      [ids, now],
    );
    return new Map(rows.map((r) => [r.seriesId, r]));
  }
}
