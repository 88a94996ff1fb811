/**
 * The multi-asset read: one field of several series, aligned by time. The field lives in
 * candles, funding rates, features or derivatives (domain/multi-asset.ts says which); table and column
 * names come from that fixed description, never from user input.
 */
import type { MultiAssetSource } from '../domain/multi-asset';
import type { SqlSession } from './database';
import type { DatabaseEngine } from './engine-layout';
import { sqlDecimal, sqlTime } from './sql';

const TABLES: Record<MultiAssetSource['kind'], string> = { candles: 'candles', funding: 'funding_rates', features: 'features', derivatives: 'derivatives' };

export interface MultiAssetValue {
  time: string;
  series_id: number;
  value: string;
}

export class MultiAssetRepository {
  constructor(
    private readonly db: SqlSession,
    /** DATABASE_ENGINE: Citus cannot push down the per-series LATERAL form below. */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {}

  /**
   * One value per (time, series), ascending by time, for the first `limit` distinct times at
   * which any of the series has a value (null values count as none).
   *
   * Each series is read by its own range scans, so the cost follows the page, not the history
   * after `start`: the first `limit` times of each series (the page's times are among them),
   * then each series' values up to the page's last time (every time up to it is a page time).
   * The last time is a scalar subquery, so it bounds each series' index scan (joined from the
   * CTE, it was a filter applied after reading everything after `start`).
   */
  async values(ids: readonly number[], source: MultiAssetSource, start: Date, end: Date, limit: number): Promise<MultiAssetValue[]> {
    const table = TABLES[source.kind];
    const { column, places, timeframe } = source;
    const tfFilter = timeframe === null ? '' : `AND timeframe = '${timeframe}'`;
    if (this.engine === 'citus') {
      // The same rows from a filter on the distribution column: each worker scans its series,
      // the coordinator keeps the page's times.
      return this.db.query<MultiAssetValue & Record<string, unknown>>(
        `WITH page AS (
           SELECT max(time) AS last FROM (
             SELECT DISTINCT time FROM ${table}
             WHERE series_id = ANY($1::int[]) ${tfFilter} AND time >= $2 AND time <= $3 AND ${column} IS NOT NULL
             ORDER BY time LIMIT $4
           ) t
         )
         SELECT ${sqlTime('v.time')} AS time, v.series_id, ${sqlDecimal(`v.${column}`, places)} AS value
         FROM ${table} v
         WHERE v.series_id = ANY($1::int[]) ${tfFilter} AND v.time >= $2 AND v.time <= (SELECT last FROM page) AND v.${column} IS NOT NULL
         ORDER BY v.time, v.series_id`,
        [ids, start, end, limit],
      );
    }
    return this.db.query<MultiAssetValue & Record<string, unknown>>(
      `WITH page AS (
         SELECT max(time) AS last FROM (
           SELECT DISTINCT f.time FROM unnest($1::int[]) AS s(id)
           CROSS JOIN LATERAL (
             SELECT time FROM ${table}
             WHERE series_id = s.id ${tfFilter} AND time >= $2 AND time <= $3 AND ${column} IS NOT NULL
             ORDER BY time LIMIT $4
           ) f
           ORDER BY f.time LIMIT $4
         ) t
       )
       SELECT ${sqlTime('v.time')} AS time, s.id AS series_id, ${sqlDecimal(`v.${column}`, places)} AS value
       FROM unnest($1::int[]) AS s(id)
       CROSS JOIN LATERAL (
         SELECT time, ${column} FROM ${table}
         WHERE series_id = s.id ${tfFilter} AND time >= $2 AND time <= (SELECT last FROM page) AND ${column} IS NOT NULL
       ) v
       ORDER BY v.time, s.id`,
      [ids, start, end, limit],
    );
  }
}
