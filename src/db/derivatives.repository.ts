/**
 * The perpetual's context per minute and its rollups (table `derivatives`, partitioned like
 * candles): page reads rendered in SQL, upserts of 1m rows at COPY speed, and the rollups that
 * derive 5m to 1d from them (open interest as open/high/low/close, the rest as the last value).
 */
import type { DerivativesInput } from '../domain/derivatives';
import { pageOf, type Derivatives } from '../domain/market';
import { TIMEFRAME_MS, finerTimeframe, rollupSpans, type CandleTimeframe, type Span } from '../domain/timeframe';
import { bulkUpsert, timeSpanOf } from './bulk-upsert';
import { moveWatermarks, readMarked, type MarkedPage, type WatermarkScope } from './watermarks.repository';
import { finerByBucket } from './candle-derivations';
import type { SqlSession } from './database';
import type { DatabaseEngine } from './engine-layout';
import { READ_ONLY, type PartitionGuard } from './partitions';
import { groupBySeries, sqlDecimal, sqlEpochMs, sqlTime, type WithSeries } from './sql';

const COLUMNS = [
  'series_id',
  'timeframe',
  'time',
  'open_interest_open',
  'open_interest_high',
  'open_interest_low',
  'open_interest',
  'mark_price',
  'oracle_price',
  'mid_price',
  'predicted_funding_rate',
  'venue_premium',
] as const;
const KEY = ['series_id', 'timeframe', 'time'] as const;
const VALUES = COLUMNS.slice(3);
/** DerivativesInput's values in COLUMNS' order (after the key). */
const VALUE_KEYS = ['openInterestOpen', 'openInterestHigh', 'openInterestLow', 'openInterest', 'markPrice', 'oraclePrice', 'midPrice', 'predictedFundingRate', 'venuePremium'] as const;
/** Rolled up as the last value of the bucket. */
const LAST = ['open_interest', 'mark_price', 'oracle_price', 'mid_price', 'predicted_funding_rate', 'venue_premium'];

/** A row as served, from the table's row `d`. */
const ROW = `${sqlTime('d.time')} AS time,
       ${sqlDecimal('d.open_interest', 6)} AS "openInterest",
       ${sqlDecimal('d.open_interest_open', 6)} AS "openInterestOpen",
       ${sqlDecimal('d.open_interest_high', 6)} AS "openInterestHigh",
       ${sqlDecimal('d.open_interest_low', 6)} AS "openInterestLow",
       ${sqlDecimal('d.open_interest * d.mark_price', 6)} AS "openInterestValue",
       ${sqlDecimal('d.mark_price', 6)} AS "markPrice",
       ${sqlDecimal('d.oracle_price', 6)} AS "oraclePrice",
       ${sqlDecimal('d.mid_price', 6)} AS "midPrice",
       ${sqlDecimal('d.predicted_funding_rate', 8)} AS "predictedFundingRate",
       ${sqlDecimal('d.venue_premium', 8)} AS "venuePremium"`;

/** Rows of one series and timeframe in [$3, $4], at most $5 per series ($1 ids, $2 timeframe), as served. */
const PAGES_SQL = `
SELECT s.id AS series_id, ${ROW}
FROM unnest($1::int[]) AS s(id)
CROSS JOIN LATERAL (
  SELECT * FROM derivatives WHERE series_id = s.id AND timeframe = $2 AND time >= $3 AND time <= $4 ORDER BY time LIMIT $5
) d`;

/** The same for one series ($1): one router statement on Citus, which cannot push down the LATERAL form. */
const ONE_SQL = `
SELECT d.series_id, ${ROW}
FROM derivatives d WHERE d.series_id = $1 AND d.timeframe = $2 AND d.time >= $3 AND d.time <= $4 ORDER BY d.time LIMIT $5`;

/** Result columns of PAGES_SQL: the series, the time, ten values. */
const PAGE_COLUMNS = 12;

/** Open interest columns: known in a bucket only when every finer row has them. */
const OPEN_INTEREST = ['open_interest_open', 'open_interest_high', 'open_interest_low', 'open_interest'];
/** What a rollup writes per column: open interest it cannot know keeps what is stored (a venue's 5-minute history). */
const ROLLED = VALUES.map((c) => [c, OPEN_INTEREST.includes(c) ? `COALESCE(EXCLUDED.${c}, derivatives.${c})` : `EXCLUDED.${c}`] as const);

/**
 * A derived row for every complete bucket (period closed at $7) from the finer rows it has,
 * rewritten only when its values changed. Open interest is the finer rows' when each has it
 * (recorded minutes), else what the bucket holds: a backfilled minute knows none, the venue's
 * 5-minute history may. $1 series, $2 timeframe, $3 its period, $4 the finer timeframe, [$5, $6)
 * the finer rows' range.
 */
const ROLLUP_SQL = `
INSERT INTO derivatives (${COLUMNS.join(', ')})
SELECT $1, $2, bucket,
       ${['(array_agg(open_interest_open ORDER BY time))[1]', 'max(open_interest_high)', 'min(open_interest_low)', '(array_agg(open_interest ORDER BY time DESC))[1]']
         .map((e) => `CASE WHEN count(open_interest) = count(*) THEN ${e} END`)
         .join(', ')},
       ${LAST.slice(1).map((c) => `(array_agg(${c} ORDER BY time DESC))[1]`).join(', ')}
${finerByBucket('derivatives', ['time', ...VALUES].join(', '))}
ON CONFLICT (series_id, timeframe, time) DO UPDATE
  SET ${ROLLED.map(([c, e]) => `${c} = ${e}`).join(', ')}
  WHERE (${VALUES.map((c) => `derivatives.${c}`).join(', ')}) IS DISTINCT FROM (${ROLLED.map(([, e]) => e).join(', ')})`;

/**
 * Backfilled minutes of one series, added where no row is (a recorded minute is never
 * replaced). $1 series, then the columns as arrays.
 */
const ADD_MINUTES_SQL = `
INSERT INTO derivatives (${COLUMNS.join(', ')})
SELECT $1, '1m', m.*
FROM unnest($2::timestamptz[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[]) AS m
ON CONFLICT (series_id, timeframe, time) DO NOTHING`;

/** A venue's 5-minute open interest into the 5m rows that have none. $1 series, $2 bucket opens, $3 values. */
const FIVE_MINUTE_OPEN_INTEREST_SQL = `
UPDATE derivatives d
   SET ${OPEN_INTEREST.map((c) => `${c} = h.oi`).join(', ')}
  FROM unnest($2::timestamptz[], $3::numeric[]) AS h(time, oi)
 WHERE d.series_id = $1 AND d.timeframe = '5m' AND d.time = h.time AND d.open_interest IS NULL`;

/** A 1m row as COPY text (empty: NULL). */
function line(seriesId: number, r: DerivativesInput): string {
  return (
    `${seriesId},1m,${new Date(r.time).toISOString()},${r.openInterestOpen ?? ''},${r.openInterestHigh ?? ''},${r.openInterestLow ?? ''},${r.openInterest ?? ''},` +
    `${r.markPrice},${r.oraclePrice},${r.midPrice ?? ''},${r.predictedFundingRate ?? ''},${r.venuePremium ?? ''}\n`
  );
}

export class DerivativesRepository {
  constructor(
    private readonly db: SqlSession,
    /** The time partitions of what it writes (partitions.ts). */
    private readonly partitions: PartitionGuard = READ_ONLY,
    /** DATABASE_ENGINE: Citus cannot push down the per-series LATERAL form of `pages`. */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {}

  /** One series' page: up to `limit` rows in [start, end], as served, with the watermark of `scope` read in the same statement when given. */
  async page(id: number, timeframe: CandleTimeframe, start: Date, end: Date, limit: number, scope: WatermarkScope | null): Promise<MarkedPage<Derivatives>> {
    const [sql, ids] = this.engine === 'citus' ? [ONE_SQL, id] : [PAGES_SQL, [id]];
    const { rows, mark } = await readMarked<Derivatives>(this.db, sql, PAGE_COLUMNS, [ids, timeframe, start, end, limit + 1], scope, { prepare: true });
    return { page: pageOf(rows, limit, (r) => r.time), mark };
  }

  /** Up to `limit` rows per series in [start, end], ascending, as served. */
  async pages(ids: readonly number[], timeframe: CandleTimeframe, start: Date, end: Date, limit: number): Promise<Map<number, Derivatives[]>> {
    if (this.engine === 'citus') {
      // One statement per series, each naming one value of the distribution column: it runs whole on that series' worker.
      const each = await Promise.all(ids.map((id) => this.db.query<WithSeries<Derivatives>>(ONE_SQL, [id, timeframe, start, end, limit], { prepare: true })));
      return groupBySeries(each.flat());
    }
    return groupBySeries(await this.db.query<WithSeries<Derivatives>>(PAGES_SQL, [ids, timeframe, start, end, limit], { prepare: true }));
  }

  /** Upsert 1m rows of one series (see CandlesRepository.upsert); must run on a transaction. */
  async upsert(seriesId: number, batches: () => AsyncIterable<readonly DerivativesInput[]>): Promise<void> {
    const { fromMs, toMs } = await timeSpanOf(batches);
    await this.write([seriesId], fromMs, toMs, async function* () {
      for await (const batch of batches()) {
        let chunk = '';
        for (const r of batch) chunk += line(seriesId, r);
        if (chunk) yield chunk;
      }
    });
  }

  /** Upsert 1m rows of several series at once (the minutes that ended together); must run on a transaction. */
  async upsertMinutes(rows: ReadonlyArray<{ seriesId: number; row: DerivativesInput }>): Promise<void> {
    const times = rows.map((r) => r.row.time);
    await this.write([...new Set(rows.map((r) => r.seriesId))], Math.min(...times), Math.max(...times), async function* () {
      yield rows.map((r) => line(r.seriesId, r.row)).join('');
    });
  }

  /**
   * Backfilled 1m rows of one series (a venue's past minutes), added where no row is: a
   * recorded minute is never replaced. Must run on a transaction.
   */
  async addMinutes(seriesId: number, rows: readonly DerivativesInput[]): Promise<void> {
    if (rows.length === 0) return;
    const times = rows.map((r) => r.time);
    const [fromMs, toMs] = [Math.min(...times), Math.max(...times)];
    await this.partitions.ensure([{ table: 'derivatives', timeframe: '1m', fromMs, toMs }]);
    const column = (k: keyof DerivativesInput) => rows.map((r) => r[k]);
    await this.db.query(ADD_MINUTES_SQL, [seriesId, rows.map((r) => new Date(r.time).toISOString()), ...VALUE_KEYS.map(column)]);
    await moveWatermarks(this.db, [seriesId], '1m', fromMs, toMs);
  }

  /**
   * A venue's open interest per 5 minutes into the 5m rows of those buckets that know none
   * (their minutes were backfilled); the coarser rows take it at the next rollUp. Must run on
   * a transaction.
   */
  async fillFiveMinuteOpenInterest(seriesId: number, points: ReadonlyArray<{ time: number; openInterest: string }>): Promise<void> {
    if (points.length === 0) return;
    await this.db.query(FIVE_MINUTE_OPEN_INTEREST_SQL, [seriesId, points.map((p) => new Date(p.time).toISOString()), points.map((p) => p.openInterest)]);
  }

  private async write(seriesIds: number[], fromMs: number, toMs: number, lines: () => AsyncIterable<string>): Promise<void> {
    if (!(fromMs <= toMs)) return;
    await this.partitions.ensure([{ table: 'derivatives', timeframe: '1m', fromMs, toMs }]);
    const target = await this.partitions.bulkTarget('derivatives', '1m');
    await bulkUpsert(this.db, { ...target, columns: COLUMNS, key: KEY }, lines);
    await moveWatermarks(this.db, seriesIds, '1m', fromMs, toMs);
  }

  /** Runs of minutes in [fromMs, toMs] (open times) without a 1m row, as [start, end) spans, ascending. */
  async missingMinutes(seriesId: number, fromMs: number, toMs: number): Promise<Span[]> {
    const rows = await this.db.query<{ s: string; e: string }>(
      `WITH t AS (SELECT time FROM derivatives WHERE series_id = $1 AND timeframe = '1m' AND time >= $2 AND time <= $3),
            n AS (SELECT time, lead(time) OVER (ORDER BY time) AS next FROM t)
       SELECT ${sqlEpochMs(`time + interval '1 minute'`)} AS s, ${sqlEpochMs('next')} AS e FROM n WHERE next > time + interval '1 minute'
       UNION ALL SELECT ${sqlEpochMs('$2::timestamptz')}, ${sqlEpochMs('min(time)')} FROM t HAVING min(time) > $2
       UNION ALL SELECT ${sqlEpochMs(`max(time) + interval '1 minute'`)}, ${sqlEpochMs(`$3::timestamptz + interval '1 minute'`)} FROM t HAVING max(time) < $3
       UNION ALL SELECT ${sqlEpochMs('$2::timestamptz')}, ${sqlEpochMs(`$3::timestamptz + interval '1 minute'`)} WHERE NOT EXISTS (SELECT 1 FROM t)`,
      [seriesId, new Date(fromMs), new Date(toMs)],
    );
    return rows.map((r): Span => [Number(r.s), Number(r.e)]).sort((a, b) => a[0] - b[0]);
  }

  /** The first and last open time of the 5m rows in [fromMs, toMs] that know no open interest (null: none). */
  async unknownOpenInterest(seriesId: number, fromMs: number, toMs: number): Promise<Span | null> {
    const [r] = await this.db.query<{ s: string | null; e: string | null }>(
      `SELECT ${sqlEpochMs('min(time)')} AS s, ${sqlEpochMs('max(time)')} AS e FROM derivatives
        WHERE series_id = $1 AND timeframe = '5m' AND time >= $2 AND time <= $3 AND open_interest IS NULL`,
      [seriesId, new Date(fromMs), new Date(toMs)],
    );
    return r.s === null || r.e === null ? null : [Number(r.s), Number(r.e)];
  }

  /** Open time of the newest 1m row of a series (null: none). */
  async latestTime(seriesId: number): Promise<number | null> {
    const [r] = await this.db.query<{ t: number | null }>(`SELECT ${sqlEpochMs('max(time)')} AS t FROM derivatives WHERE series_id = $1 AND timeframe = '1m'`, [seriesId]);
    return r.t === null ? null : Number(r.t);
  }

  /** First and last time of the 1m rows per series: what `rollUp` derives from (`mds compute`). */
  async minuteSpans(): Promise<Array<{ seriesId: number; first: number; last: number }>> {
    return this.db.query(
      `SELECT series_id AS "seriesId", ${sqlEpochMs('min(time)')} AS first, ${sqlEpochMs('max(time)')} AS last
       FROM derivatives WHERE timeframe = '1m' GROUP BY series_id`,
    );
  }

  /** Recompute 5m to 1d, each from the next finer timeframe, over the whole buckets containing [startMs, endMs] (as CandlesRepository.rollUp). */
  async rollUp(seriesId: number, startMs: number, endMs: number, nowMs: number): Promise<void> {
    for (const s of rollupSpans('1m', startMs, endMs, nowMs)) {
      const p = TIMEFRAME_MS[s.timeframe];
      await this.partitions.ensure([{ table: 'derivatives', timeframe: s.timeframe, fromMs: s.startMs, toMs: s.endMs - p }]);
      const params = [seriesId, s.timeframe, `${p / 1000} seconds`, finerTimeframe(s.timeframe), new Date(s.startMs), new Date(s.endMs), new Date(nowMs)];
      await this.db.query(ROLLUP_SQL, params, { prepare: true });
      await moveWatermarks(this.db, [seriesId], s.timeframe, s.startMs, s.endMs - p);
    }
  }
}
