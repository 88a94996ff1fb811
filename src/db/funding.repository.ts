/**
 * Funding settlements of perpetual series (hourly, or every 4 or 8 hours): page reads (plain, or
 * with the 30-day z-score and the perp/spot premium computed in SQL) and bulk upserts.
 */
import type { FundingRateInput } from '../domain/csv-rows';
import { pageOf, type FundingRate } from '../domain/market';
import { bulkUpsert } from './bulk-upsert';
import { moveWatermarks, readMarked, type MarkedPage, type WatermarkScope } from './watermarks.repository';
import type { SqlSession } from './database';
import type { DatabaseEngine } from './engine-layout';
import { hourlyRate, RECOMPUTE_INTERVALS_SQL, zscoreWindows } from './funding-windows';
import { groupBySeries, sqlDecimal, sqlEpochMs, sqlFloat, sqlTime, type WithSeries } from './sql';

/** A served row's columns of funding_rates (no alias): the time, the rate, its interval and hourly rate. */
const ROW = (f: string) =>
  `${sqlTime(`${f}time`)} AS time, ${sqlDecimal(`${f}rate`, 8)} AS rate, ${f}interval_hours::text AS "intervalHours", ${sqlDecimal(`${f}rate / ${f}interval_hours`, 8)} AS "rateHourly"`;

/** One series' rates in [$2, $3], at most $4 ($1 the series): one router statement on Citus. */
const ONE_SQL = `SELECT series_id, ${ROW('')} FROM funding_rates
   WHERE series_id = $1 AND time >= $2 AND time <= $3 ORDER BY time LIMIT $4`;

/** The same for each of the series $1, one range scan each. */
const PAGES_SQL = `SELECT s.id AS series_id, ${ROW('f.')}
   FROM unnest($1::int[]) AS s(id)
   CROSS JOIN LATERAL (
     SELECT time, rate, interval_hours FROM funding_rates
     WHERE series_id = s.id AND time >= $2 AND time <= $3 ORDER BY time LIMIT $4
   ) f`;

/**
 * One perpetual series' rates in [start, end] with the premium's closes read apart: rows as
 * served, with rateNormalized (z-score of the hourly rate over the last floor(720 / h) rates
 * ending at t, sample std; null while fewer exist or std < 1e-12) and premium ((perp - spot) /
 * spot on the 1h closes of the hour before t). Each series is read by its own key (`perp`,
 * `spot`: $1 and $2), and the closes are combined with the rates in one place: on Citus each
 * materialized part runs on its own series' worker (the series may live on different ones).
 * $3, $4 the range, $5 the limit.
 */
function normalizedSql(maxHours: number): string {
  const z = zscoreWindows('', hourlyRate('rate', 'interval_hours', maxHours), maxHours);
  return `WITH rates AS MATERIALIZED (
     SELECT w.* FROM (
       SELECT time, rate, interval_hours, ${z.aggregates}
       FROM funding_rates
       WHERE series_id = $1 AND time <= $4 AND time >= coalesce(
         (SELECT time FROM funding_rates WHERE series_id = $1 AND time < $3 ORDER BY time DESC OFFSET 718 LIMIT 1),
         '-infinity')
       WINDOW ${z.windows}
     ) w
     WHERE w.time >= $3 ORDER BY w.time LIMIT $5
   ), perp AS MATERIALIZED (
     SELECT time, close FROM candles WHERE series_id = $1 AND timeframe = '1h'
       AND time >= $3::timestamptz - interval '1 hour' AND time <= (SELECT max(time) FROM rates)
   ), spot AS MATERIALIZED (
     SELECT time, close FROM candles WHERE series_id = $2 AND timeframe = '1h'
       AND time >= $3::timestamptz - interval '1 hour' AND time <= (SELECT max(time) FROM rates)
   )
   SELECT $1::int AS series_id, ${ROW('f.')},
          ${sqlFloat(z.score('f', hourlyRate('f.rate', 'f.interval_hours', maxHours), 'f.interval_hours'), 6)} AS "rateNormalized", -- as funding_norm is stored
          ${sqlDecimal('(p.close - sp.close) / sp.close', 8)} AS premium
   FROM rates f
   LEFT JOIN perp p ON p.time = f.time - interval '1 hour'
   LEFT JOIN spot sp ON sp.time = f.time - interval '1 hour'
   ORDER BY f.time`;
}

/** Settlement intervals of a venue, for the rows an upsert writes (RECOMPUTE_INTERVALS_SQL). */
export interface SettlementIntervals {
  /** The venue's longest interval: a longer distance between settlements is a gap. */
  maxHours: number;
  /** The interval of a series' first row: the venue's current one for the instrument. */
  firstHours: number;
}

/** A normalized read's other inputs: the spot series of the symbol (null: none) and the venue's longest interval. */
export interface NormalizedOf {
  spot: number | null;
  maxHours: number;
}

/** Hyperliquid's: every hour. */
export const HOURLY: SettlementIntervals = { maxHours: 1, firstHours: 1 };

export class FundingRepository {
  constructor(
    private readonly db: SqlSession,
    /** DATABASE_ENGINE: Citus cannot push down the per-series LATERAL form of `pages`. */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {}

  /**
   * One perpetual series' page: up to `limit` rates in [start, end], as served; normalized (with
   * `spot`, the spot series of its symbol, or null, and its venue's longest interval) with the
   * z-score and the premium; with the watermark of `scope` read in the same statement when given.
   */
  async page(id: number, normalized: NormalizedOf | null, start: Date, end: Date, limit: number, scope: WatermarkScope | null): Promise<MarkedPage<FundingRate>> {
    const read = normalized
      ? readMarked<FundingRate>(this.db, normalizedSql(normalized.maxHours), 7, [id, normalized.spot, start, end, limit + 1], scope)
      : this.engine === 'citus'
        ? readMarked<FundingRate>(this.db, ONE_SQL, 5, [id, start, end, limit + 1], scope)
        : readMarked<FundingRate>(this.db, PAGES_SQL, 5, [[id], start, end, limit + 1], scope);
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

  /** `page`'s normalized rates for several series, a statement each (each reads its two series by their keys). */
  async normalizedPages(series: ReadonlyArray<{ id: number } & NormalizedOf>, start: Date, end: Date, limit: number): Promise<Map<number, FundingRate[]>> {
    const each = await Promise.all(series.map((s) => this.db.query<WithSeries<FundingRate>>(normalizedSql(s.maxHours), [s.id, s.spot, start, end, limit])));
    return groupBySeries(each.flat());
  }

  /** Time of the newest stored rate of a series (null: none). */
  async latestTime(seriesId: number): Promise<number | null> {
    const [r] = await this.db.query<{ t: number | null }>(`SELECT ${sqlEpochMs('max(time)')} AS t FROM funding_rates WHERE series_id = $1`, [seriesId]);
    return r.t;
  }

  /**
   * Upsert the rates of one series (see CandlesRepository.upsert), then the intervals of the rows
   * from the one before them on (RECOMPUTE_INTERVALS_SQL); must run on a transaction.
   */
  async upsert(seriesId: number, batches: () => AsyncIterable<readonly FundingRateInput[]>, intervals: SettlementIntervals = HOURLY): Promise<void> {
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
    if (fromMs > toMs) return;
    // A row's interval depends on the row before it: writing one may change those after it.
    const changed = await this.db.query<{ t: Date }>(RECOMPUTE_INTERVALS_SQL, [seriesId, new Date(fromMs), intervals.maxHours, intervals.firstHours]);
    for (const { t } of changed) {
      fromMs = Math.min(fromMs, new Date(t).getTime());
      toMs = Math.max(toMs, new Date(t).getTime());
    }
    await moveWatermarks(this.db, [seriesId], 'funding', fromMs, toMs);
  }
}
