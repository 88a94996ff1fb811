/**
 * Pre-computed features, wide (one column per catalogue name): the page reads served by the
 * API, the technical rows the feature precompute writes at COPY speed, and the funding/premium
 * features, which are window functions over hourly funding and 1h closes, computed in SQL.
 */
import { pageOf, type FeatureRow } from '../domain/market';
import { FEATURE_TIMEFRAMES, type FeatureTimeframe } from '../domain/timeframe';
import { bulkUpsert, type CopyChunks } from './bulk-upsert';
import { FEATURE_COLUMNS, FEATURE_TYPES, technicalCopyChunks } from './feature-rows';
import { moveWatermarks, readMarked, type MarkedPage, type WatermarkScope } from './watermarks.repository';
import type { QueryOptions, SqlSession } from './database';
import type { DatabaseEngine } from './engine-layout';
import { READ_ONLY, type PartitionGuard } from './partitions';
import { hourlyRate, zscoreWindows } from './funding-windows';
import { groupBySeries, sqlEpochMs, sqlTime, type WithSeries } from './sql';

/**
 * Feature rows of the series $1 in [$3, $4] at timeframe $2, at most $5 each: the series, the
 * time, one text per name. `one` ($1::int): a single series, the form Citus runs on its worker.
 */
const rowsSql = (names: readonly string[], one?: string) => `SELECT s.id AS series_id, ${sqlTime('x.time')} AS time, ${names.map((n) => `x.${n}::text AS ${n}`).join(', ')}
   FROM ${one ? `(VALUES (${one})) AS s(id)` : 'unnest($1::int[]) AS s(id)'}
   CROSS JOIN LATERAL (
     SELECT time, ${names.join(', ')} FROM features
     WHERE series_id = s.id AND timeframe = $2 AND time >= $3 AND time <= $4
     ORDER BY time LIMIT $5
   ) x`;

const FRESHNESS_SQL = `
  SELECT t.timeframe,
         extract(epoch FROM max(l.time))::float8 AS latest,
         extract(epoch FROM min(l.time))::float8 AS stalest
  FROM (VALUES ${FEATURE_TIMEFRAMES.map((t) => `('${t}')`).join(', ')}) AS t(timeframe)
  CROSS JOIN series s
  CROSS JOIN LATERAL (
    SELECT f.time FROM features f
    WHERE f.series_id = s.id AND f.timeframe = t.timeframe
    ORDER BY f.time DESC LIMIT 1
  ) l
  GROUP BY t.timeframe`;

/**
 * The funding features of perpetual series $1 (spot series $2; first settlement $3 when not hourly), its
 * venue settling at most every `maxHours` hours (funding-windows.ts).
 */
function fundingFeaturesSql(engine: DatabaseEngine, maxHours: number): string {
  const rate = zscoreWindows('r', hourlyRate('rate', 'interval_hours', maxHours), maxHours);
  const premium = zscoreWindows('p', 'premium', maxHours);
  // An hourly venue sums the last 24 and 168 rates; others the settlements in (t - 24 h, t] and
  // (t - 7 d, t] (times are whole hours), once the history is that long.
  const sums =
    maxHours === 1
      ? { windows: `w24 AS (ORDER BY time ROWS BETWEEN 23 PRECEDING AND CURRENT ROW), w168 AS (ORDER BY time ROWS BETWEEN 167 PRECEDING AND CURRENT ROW)`, day: 'r.n24 = 24', week: 'r.n168 = 168' }
      : {
          windows: `w24 AS (ORDER BY time RANGE BETWEEN interval '23 hours' PRECEDING AND CURRENT ROW), w168 AS (ORDER BY time RANGE BETWEEN interval '167 hours' PRECEDING AND CURRENT ROW)`,
          day: `r.time - $3::timestamptz >= interval '24 hours'`,
          week: `r.time - $3::timestamptz >= interval '7 days'`,
        };
  const closes =
    engine === 'citus'
      ? // A materialized CTE is planned on its own (the spot series' worker), the rest on the perpetual's.
        `spot AS MATERIALIZED (SELECT time, close FROM candles WHERE series_id = $2 AND timeframe = '1h'), base AS (
         SELECT f.time, f.rate, f.interval_hours, (p.close - sp.close) / sp.close AS premium
         FROM funding_rates f
         LEFT JOIN candles p ON p.series_id = f.series_id AND p.timeframe = '1h' AND p.time = f.time - interval '1 hour'
         LEFT JOIN spot sp ON sp.time = f.time - interval '1 hour'
         WHERE f.series_id = $1`
      : `base AS (
         SELECT f.time, f.rate, f.interval_hours, (p.close - sp.close) / sp.close AS premium
         FROM funding_rates f
         LEFT JOIN candles p ON p.series_id = f.series_id AND p.timeframe = '1h' AND p.time = f.time - interval '1 hour'
         LEFT JOIN candles sp ON sp.timeframe = '1h' AND sp.time = f.time - interval '1 hour'
           AND sp.series_id = $2
         WHERE f.series_id = $1`;
  return `WITH ${closes}
       ), rates AS (
         SELECT time, rate, interval_hours, premium, ${rate.aggregates},
                count(*) OVER w24 AS n24, sum(rate) OVER w24 AS sum24,
                count(*) OVER w168 AS n168, sum(rate) OVER w168 AS sum168
         FROM base
         WINDOW ${rate.windows}, ${sums.windows}
       ), premiums AS (
         SELECT time, ${premium.aggregates}
         FROM base WHERE premium IS NOT NULL
         WINDOW ${premium.windows}
       )
       INSERT INTO features (series_id, timeframe, time, funding_norm, funding_cumulative_24h, funding_cumulative_7d, premium_pct, premium_zscore)
       SELECT $1, 'funding', r.time,
              round((${rate.score('r', hourlyRate('r.rate', 'r.interval_hours', maxHours), 'r.interval_hours')})::numeric, 6),
              CASE WHEN ${sums.day} THEN round(r.sum24, 6) END,
              CASE WHEN ${sums.week} THEN round(r.sum168, 6) END,
              round(r.premium * 100, 6),
              round((${premium.score('pz', 'r.premium', 'r.interval_hours')})::numeric, 6)
       FROM rates r LEFT JOIN premiums pz USING (time)
       ON CONFLICT (series_id, timeframe, time) DO UPDATE SET
         funding_norm = EXCLUDED.funding_norm, funding_cumulative_24h = EXCLUDED.funding_cumulative_24h,
         funding_cumulative_7d = EXCLUDED.funding_cumulative_7d, premium_pct = EXCLUDED.premium_pct,
         premium_zscore = EXCLUDED.premium_zscore`;
}

export class FeaturesRepository {
  constructor(
    private readonly db: SqlSession,
    /** The time partitions of what it writes (partitions.ts). */
    private readonly partitions: PartitionGuard = READ_ONLY,
    /** DATABASE_ENGINE: on Citus the spot series' closes are read apart (another worker's shard). */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {}

  /**
   * Up to `limit` feature rows per series in [start, end], one column per requested name.
   * `names` come from the catalogue (validated by the read), never raw user input.
   */
  async pages(ids: readonly number[], timeframe: FeatureTimeframe, names: readonly string[], start: Date, end: Date, limit: number): Promise<Map<number, FeatureRow[]>> {
    if (this.engine === 'citus') {
      // One statement per series, each naming one value of the distribution column (Citus cannot push down the LATERAL form).
      const each = await Promise.all(ids.map((id) => this.db.query<WithSeries<FeatureRow>>(rowsSql(names, '$1::int'), [id, timeframe, start, end, limit])));
      return groupBySeries(each.flat());
    }
    return groupBySeries(await this.db.query<WithSeries<FeatureRow>>(rowsSql(names), [ids, timeframe, start, end, limit]));
  }

  /** One series' rows as `pages` gives them, with the watermark of `scope` read in the same statement when given. */
  async page(id: number, timeframe: FeatureTimeframe, names: readonly string[], start: Date, end: Date, limit: number, scope: WatermarkScope | null): Promise<MarkedPage<FeatureRow>> {
    const { rows, mark } =
      this.engine === 'citus'
        ? await readMarked<FeatureRow>(this.db, rowsSql(names, '$1::int'), names.length + 2, [id, timeframe, start, end, limit + 1], scope)
        : await readMarked<FeatureRow>(this.db, rowsSql(names), names.length + 2, [[id], timeframe, start, end, limit + 1], scope);
    return { page: pageOf(rows, limit, (r) => r.time), mark };
  }

  /**
   * The same rows, each rendered by PostgreSQL into the caller's template: `template[0]`, the
   * time as a JSON string, then per name `template[i + 1]` and its value as a JSON string or
   * null, then `template[names.length + 1]`. A 10,000-row page of 15 features is 160,000 values
   * the driver would otherwise parse one by one; the names and punctuation are the caller's (a
   * serializer's), the values' rendering the database's. Also the row's time, for the next start.
   */
  async renderedPage(
    id: number,
    timeframe: FeatureTimeframe,
    names: readonly string[],
    template: readonly string[],
    start: Date,
    end: Date,
    limit: number,
    scope: WatermarkScope | null,
  ): Promise<MarkedPage<{ time: string; text: string }>> {
    if (template.length !== names.length + 2) throw new Error(`${names.length} names take a template of ${names.length + 2} parts`);
    // Template parts as parameters $6 on, one each: constants to the planner, never SQL text.
    const part = (i: number) => `$${6 + i}::text`;
    const values = names.map((n, i) => ` || ${part(i + 1)} || coalesce('"' || ${n}::text || '"', 'null')`).join('');
    const sql = `SELECT ${sqlTime('time')} AS time, ${part(0)} || '"' || ${sqlTime('time')} || '"'${values} || ${part(names.length + 1)} AS text
       FROM features WHERE series_id = $1 AND timeframe = $2 AND time >= $3 AND time <= $4
       ORDER BY features.time LIMIT $5`;
    const { rows, mark } = await readMarked<{ time: string; text: string }>(this.db, sql, 2, [id, timeframe, start, end, limit + 1, ...template], scope);
    return { page: pageOf(rows, limit, (r) => r.time), mark };
  }

  /**
   * Upsert technical feature rows for times[i] with i >= firstIndex (a value that is null or
   * not finite is NULL); must run on a transaction.
   */
  async writeTechnical(
    seriesId: number,
    timeframe: FeatureTimeframe,
    times: ArrayLike<number>,
    values: Record<string, ArrayLike<number | null>>,
    firstIndex: number,
  ): Promise<number> {
    if (firstIndex >= times.length) return 0;
    return this.writeRows(seriesId, timeframe, { fromMs: times[firstIndex], toMs: times[times.length - 1] }, times.length - firstIndex, async function* () {
      yield* technicalCopyChunks(seriesId, timeframe, times, values, firstIndex);
    });
  }

  /** Technical rows encoded elsewhere (the demo seed's worker) by `technicalCopyChunks`: written as `writeTechnical` writes its own. */
  async writeEncoded(seriesId: number, rows: CopyChunks<FeatureTimeframe>): Promise<number> {
    if (rows.count === 0) return 0;
    return this.writeRows(seriesId, rows.timeframe, rows.span, rows.count, async function* () {
      yield* rows.chunks;
    });
  }

  private async writeRows(seriesId: number, timeframe: FeatureTimeframe, span: { fromMs: number; toMs: number }, count: number, rows: () => AsyncIterable<Buffer>): Promise<number> {
    await this.partitions.ensure([{ table: 'features', timeframe, ...span }]);
    // A tail starts at the bucket that was still filling at the last write (a backfill batch
    // ends mid-bucket, and that bucket's row was written from the minutes then stored): its
    // rows are replaced, and a technical row holds nothing but these columns.
    const clear = () =>
      this.db.query('DELETE FROM features WHERE series_id = $1 AND timeframe = $2 AND time >= $3 AND time <= $4', [
        seriesId,
        timeframe,
        new Date(span.fromMs),
        new Date(span.toMs),
      ]);
    const target = await this.partitions.bulkTarget('features', timeframe);
    await bulkUpsert(this.db, { ...target, columns: FEATURE_COLUMNS, key: ['series_id', 'timeframe', 'time'], types: FEATURE_TYPES }, rows, { clear });
    await moveWatermarks(this.db, [seriesId], timeframe, span.fromMs, span.toMs);
    return count;
  }

  /**
   * Funding and premium features of one perpetual series, over its whole funding history, its
   * venue settling at most every `maxHours` hours: funding_norm (z-score of the hourly rate over
   * the last floor(720 / h) settlements, sample std), the sums of the rates over 24 hours and 7
   * days (24 and 168 rows on an hourly venue), premium_pct (premium x 100, premium from the 1h
   * closes of the hour before t on both venues; null without a spot series) and premium_zscore
   * (z-score over the last floor(720 / h) available premiums).
   */
  async writeFundingFeatures(perpSeriesId: number, spotSeriesId: number | null, maxHours = 1): Promise<void> {
    const [span] = await this.db.query<{ first: number | null; last: number | null }>(
      `SELECT ${sqlEpochMs('min(time)')} AS first, ${sqlEpochMs('max(time)')} AS last FROM funding_rates WHERE series_id = $1`,
      [perpSeriesId],
    );
    if (span.first === null || span.last === null) return;
    await this.partitions.ensure([{ table: 'features', timeframe: 'funding', fromMs: span.first, toMs: span.last }]);
    await this.db.query(fundingFeaturesSql(this.engine, maxHours), maxHours === 1 ? [perpSeriesId, spotSeriesId] : [perpSeriesId, spotSeriesId, new Date(span.first)]);
    await moveWatermarks(this.db, [perpSeriesId], 'funding', span.first, span.last);
  }

  /** Open time of the newest feature row of a series at each of `timeframes` (absent: none), in one query. */
  async latestTimes(seriesId: number, timeframes: readonly FeatureTimeframe[]): Promise<Map<FeatureTimeframe, number>> {
    const rows = await this.db.query<{ timeframe: FeatureTimeframe; t: number }>(
      `SELECT tf.timeframe, ${sqlEpochMs('f.time')} AS t
         FROM unnest($2::text[]) AS tf(timeframe)
         CROSS JOIN LATERAL (
           SELECT time FROM features WHERE series_id = $1 AND timeframe = tf.timeframe ORDER BY time DESC LIMIT 1
         ) f`,
      [seriesId, timeframes],
      { prepare: true },
    );
    return new Map(rows.map((r) => [r.timeframe, Number(r.t)]));
  }

  /**
   * Per timeframe, the open time (Unix s) of the newest feature row of any series, and the
   * least recent of the series' newest rows (a stalled series shows there).
   */
  async freshness(opts: QueryOptions): Promise<Array<{ timeframe: string; latest: number | null; stalest: number | null }>> {
    if (this.engine !== 'citus') return this.db.query(FRESHNESS_SQL, [], opts);
    // Citus cannot push down the LATERAL over every series: each series' newest rows by its own key, combined here.
    const series = await this.db.query<{ id: number }>('SELECT id FROM series', [], opts);
    const newest = await Promise.all(series.map((r) => this.latestTimes(r.id, FEATURE_TIMEFRAMES)));
    return FEATURE_TIMEFRAMES.flatMap((timeframe) => {
      const seconds = newest.flatMap((m) => (m.has(timeframe) ? [m.get(timeframe)! / 1000] : []));
      return seconds.length ? [{ timeframe, latest: Math.max(...seconds), stalest: Math.min(...seconds) }] : [];
    });
  }
}
