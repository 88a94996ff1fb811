/** Series (exchange, symbol) lookups shared by import, rollup and reads. */
import type { SqlSession } from './database';

export interface SeriesRef {
  id: number;
  exchange: string;
  symbol: string;
}

/** The id of the series, created if new (inside the caller's transaction when given one). */
export async function ensureSeries(s: SqlSession, exchange: string, symbol: string): Promise<number> {
  const rows = await s.query<{ id: number }>(
    `INSERT INTO series (exchange, symbol) VALUES ($1, $2)
     ON CONFLICT (exchange, symbol) DO UPDATE SET exchange = EXCLUDED.exchange
     RETURNING id`,
    [exchange, symbol],
  );
  return rows[0].id;
}

export async function findSeries(s: SqlSession, exchange: string, symbol: string): Promise<SeriesRef | null> {
  const rows = await s.query<{ id: number }>('SELECT id FROM series WHERE exchange = $1 AND symbol = $2', [
    exchange,
    symbol,
  ]);
  return rows.length ? { id: rows[0].id, exchange, symbol } : null;
}

export async function listSeries(s: SqlSession): Promise<SeriesRef[]> {
  return s.query<{ id: number; exchange: string; symbol: string }>(
    'SELECT id, exchange, symbol FROM series ORDER BY exchange, symbol',
  );
}
