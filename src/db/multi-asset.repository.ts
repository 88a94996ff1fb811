/**
 * The multi-asset read: one field of several series, aligned by time. The field lives in
 * candles, funding rates or features (domain/multi-asset.ts says which); table and column
 * names come from that fixed description, never from user input.
 */
import type { MultiAssetSource } from '../domain/multi-asset';
import type { SqlSession } from './database';
import { sqlDecimal, sqlTime } from './sql';

const TABLES: Record<MultiAssetSource['kind'], string> = { candles: 'candles', funding: 'funding_rates', features: 'features' };

export interface MultiAssetValue {
  time: string;
  series_id: number;
  value: string;
}

export class MultiAssetRepository {
  constructor(private readonly db: SqlSession) {}

  /**
   * One value per (time, series), ascending by time, for the first `limit` distinct times at
   * which any of the series has a value (null values count as none).
   */
  async values(ids: readonly number[], source: MultiAssetSource, start: Date, end: Date, limit: number): Promise<MultiAssetValue[]> {
    const table = TABLES[source.kind];
    const { column, places, timeframe } = source;
    const tfFilter = timeframe === null ? '' : `AND timeframe = '${timeframe}'`;
    return this.db.query<MultiAssetValue & Record<string, unknown>>(
      `WITH times AS (
         SELECT DISTINCT time FROM ${table}
         WHERE series_id = ANY($1::int[]) ${tfFilter} AND time >= $2 AND time <= $3 AND ${column} IS NOT NULL
         ORDER BY time LIMIT $4
       )
       SELECT ${sqlTime('v.time')} AS time, v.series_id, ${sqlDecimal(`v.${column}`, places)} AS value
       FROM ${table} v JOIN times USING (time)
       WHERE v.series_id = ANY($1::int[]) ${tfFilter.replace('timeframe', 'v.timeframe')} AND v.${column} IS NOT NULL
       ORDER BY v.time`,
      [ids, start, end, limit],
    );
  }
}
