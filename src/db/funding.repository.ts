/**
 * Hourly funding rates of perpetual series: page reads (plain, or with the 30-day z-score and
 * the perp/spot premium computed in SQL) and bulk upserts.
 */
import type { FundingRateInput } from '../domain/csv-rows';
import { pageOf, type FundingRate } from '../domain/market';
import { bulkUpsert } from './bulk-upsert';
import { moveWatermarks, readMarked, type MarkedPage, type WatermarkScope } from './watermarks.repository';
import type { SqlSession } from './database';
import type { DatabaseEngine } from './engine-layout';
import { groupBySeries, sqlDecimal, sqlEpochMs, sqlFloat, sqlTime, type WithSeries } from './sql';

/** One series' rates in [$2, $3], at most $4 ($1 the series): one router statement on Citus. */
const ONE_SQL = `SELECT series_id, ${sqlTime('time')} AS time, ${sqlDecimal('rate', 8)} AS rate FROM funding_rates
   WHERE series_id = $1 AND time >= $2 AND time <= $3 ORDER BY time LIMIT $4`;

/** The same for each of the series $1, one range scan each. */
const PAGES_SQL = `SELECT s.id AS series_id, ${sqlTime('f.time')} AS time, ${sqlDecimal('f.rate', 8)} AS rate
   FROM unnest($1::int[]) AS s(id)
   CROSS JOIN LATERAL (
     SELECT time, rate FROM funding_rates
     WHERE series_id = s.id AND time >= $2 AND time <= $3 ORDER BY time LIMIT $4
   ) f`;

/**
 * Rates with rateNormalized (z-score over the 720 rates ending at t, sample std; null while
 * fewer exist or std < 1e-12) and premium ((perp - spot) / spot on the 1h closes of the hour
 * before t), for the pairs ($1 perp series, $2 spot series of the same symbol or null), in
 * [$3, $4], at most $5 per series.
 */
const NORMALIZED_SQL = `SELECT s.perp AS series_id, ${sqlTime('f.time')} AS time, ${sqlDecimal('f.rate', 8)} AS rate,
          CASE WHEN f.n = 720 AND f.sd >= 1e-12 THEN ${sqlFloat('((f.rate - f.mean) / f.sd)::float8', 6)} END AS "rateNormalized", -- as funding_norm is stored
          ${sqlDecimal('(p.close - sp.close) / sp.close', 8)} AS premium
   FROM unnest($1::int[], $2::int[]) AS s(perp, spot)
   CROSS JOIN LATERAL (
     SELECT w.* FROM (
       SELECT time, rate,
              count(*) OVER win AS n, avg(rate) OVER win AS mean, stddev_samp(rate) OVER win AS sd
       FROM funding_rates
       WHERE series_id = s.perp AND time <= $4 AND time >= coalesce(
         (SELECT time FROM funding_rates WHERE series_id = s.perp AND time < $3 ORDER BY time DESC OFFSET 718 LIMIT 1),
         '-infinity')
       WINDOW win AS (ORDER BY time ROWS BETWEEN 719 PRECEDING AND CURRENT ROW)
     ) w
     WHERE w.time >= $3 ORDER BY w.time LIMIT $5
   ) f
   LEFT JOIN candles p ON p.series_id = s.perp AND p.timeframe = '1h' AND p.time = f.time - interval '1 hour'
   LEFT JOIN candles sp ON sp.series_id = s.spot AND sp.timeframe = '1h' AND sp.time = f.time - interval '1 hour'
   ORDER BY s.perp, f.time`;

export class FundingRepository {
  constructor(
    private readonly db: SqlSession,
    /** DATABASE_ENGINE: Citus cannot push down the per-series LATERAL form of `pages`. */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {}

  /**
   * One perpetual series' page: up to `limit` rates in [start, end], as served; normalized (with
   * `spot`, the spot series of its symbol, or null) with the z-score and the premium; with the
   * watermark of `scope` read in the same statement when given.
   */
  async page(id: number, normalized: { spot: number | null } | null, start: Date, end: Date, limit: number, scope: WatermarkScope | null): Promise<MarkedPage<FundingRate>> {
    const read = normalized
      ? readMarked<FundingRate>(this.db, NORMALIZED_SQL, 5, [[id], [normalized.spot], start, end, limit + 1], scope)
      : this.engine === 'citus'
        ? readMarked<FundingRate>(this.db, ONE_SQL, 3, [id, start, end, limit + 1], scope)
        : readMarked<FundingRate>(this.db, PAGES_SQL, 3, [[id], start, end, limit + 1], scope);
    const { rows, mark } = await read;
    return { page: pageOf(rows, limit, (r) => r.time), mark };
  }

  /** Up to `limit` funding rows per perp series in [start, end], ascending. */
  async pages(ids: readonly number[], start: Date, end: Date, limit: number): Promise<Map<number, FundingRate[]>> {
    if (this.engine === 'citus') {
      // One statement per series, each naming one value of the distribution column: it runs whole on that series' worker.
      const each = await Promise.all(ids.map((id) => this.db.query<WithSeries<FundingRate>>(ONE_SQL, [id, start, end, limit])));
      return groupBySeries(each.flat());
    }
    return groupBySeries(await this.db.query<WithSeries<FundingRate>>(PAGES_SQL, [ids, start, end, limit]));
  }

  /** `page`'s normalized rates for several series: `pairs` are [perp series, spot series of the same symbol or null]. */
  async normalizedPages(pairs: ReadonlyArray<[number, number | null]>, start: Date, end: Date, limit: number): Promise<Map<number, FundingRate[]>> {
    return groupBySeries(await this.db.query<WithSeries<FundingRate>>(NORMALIZED_SQL, [pairs.map((p) => p[0]), pairs.map((p) => p[1]), start, end, limit]));
  }

  /** Time of the newest stored rate of a series (null: none). */
  async latestTime(seriesId: number): Promise<number | null> {
    const [r] = await this.db.query<{ t: number | null }>(`SELECT ${sqlEpochMs('max(time)')} AS t FROM funding_rates WHERE series_id = $1`, [seriesId]);
    return r.t;
  }

  /** Upsert the rates of one series (see CandlesRepository.upsert); must run on a transaction. */
  async upsert(seriesId: number, batches: () => AsyncIterable<readonly FundingRateInput[]>): Promise<void> {
    // The span of what was written, for its watermarks: taken as the rows go by (no second pass).
    let fromMs = Infinity;
    let toMs = -Infinity;
    async function* lines(): AsyncGenerator<string> {
      for await (const batch of batches()) {
        let chunk = '';
        for (const r of batch) {
          chunk += `${seriesId},${new Date(r.time).toISOString()},${r.rate}\n`;
          if (r.time < fromMs) fromMs = r.time;
          if (r.time > toMs) toMs = r.time;
        }
        if (chunk) yield chunk;
      }
    }
    await bulkUpsert(this.db, { table: 'funding_rates', columns: ['series_id', 'time', 'rate'], key: ['series_id', 'time'] }, lines);
    await moveWatermarks(this.db, [seriesId], 'funding', fromMs, toMs);
  }
}
