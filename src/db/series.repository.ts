/**
 * Series: one market, a symbol on one venue, the key every stored row hangs from. Resolving
 * (exchange, symbol) to its id happens here, once, behind a cache shared by every repository
 * instance of the process: series are never deleted, so a cached id never goes stale.
 */
import type { MarketRef } from '../domain/market';
import type { SqlSession } from './database';

export interface SeriesRow extends MarketRef {
  id: number;
}

/** The cache key of a market. */
export const marketKey = (m: MarketRef) => `${m.exchange}|${m.symbol}`;

export class SeriesRepository {
  constructor(
    private readonly db: SqlSession,
    /** exchange|symbol -> id, filled by reads of committed rows only. */
    private readonly cache = new Map<string, number>(),
  ) {}

  /** The same repository over another session (a transaction), sharing the cache. */
  on(session: SqlSession): SeriesRepository {
    return new SeriesRepository(session, this.cache);
  }

  /** The id of the series, created if new (inside the caller's transaction when on one). */
  async ensure(m: MarketRef): Promise<number> {
    const rows = await this.db.query<{ id: number }>(
      `INSERT INTO series (exchange, symbol) VALUES ($1, $2)
       ON CONFLICT (exchange, symbol) DO UPDATE SET exchange = EXCLUDED.exchange
       RETURNING id`,
      [m.exchange, m.symbol],
    );
    return rows[0].id;
  }

  /** Ids of the named markets, keyed by marketKey; unknown markets are absent. One query per venue of the misses. */
  async idsOf(refs: readonly MarketRef[]): Promise<Map<string, number>> {
    const missing = new Map<string, Set<string>>();
    for (const r of refs) {
      if (this.cache.has(marketKey(r))) continue;
      let set = missing.get(r.exchange);
      if (!set) missing.set(r.exchange, (set = new Set()));
      set.add(r.symbol);
    }
    for (const [exchange, symbols] of missing) {
      const rows = await this.db.query<SeriesRow & Record<string, unknown>>(
        'SELECT id, exchange, symbol FROM series WHERE exchange = $1 AND symbol = ANY($2::text[])',
        [exchange, [...symbols]],
      );
      for (const row of rows) this.cache.set(marketKey(row), row.id);
    }
    const out = new Map<string, number>();
    for (const r of refs) {
      const id = this.cache.get(marketKey(r));
      if (id !== undefined) out.set(marketKey(r), id);
    }
    return out;
  }

  async idOf(ref: MarketRef): Promise<number | undefined> {
    return (await this.idsOf([ref])).get(marketKey(ref));
  }

  /** Every market of `exchanges` (null: of every exchange stored), by symbol, then exchange in the order given. */
  async list(exchanges: readonly string[] | null = null): Promise<SeriesRow[]> {
    const rows = await this.db.query<SeriesRow & Record<string, unknown>>(
      `SELECT id, exchange, symbol FROM series WHERE $1::text[] IS NULL OR exchange = ANY($1::text[])
       ORDER BY symbol, array_position($1::text[], exchange), exchange`,
      [exchanges],
    );
    for (const row of rows) this.cache.set(marketKey(row), row.id);
    return rows;
  }

  async get(id: number): Promise<SeriesRow | null> {
    const [row] = await this.db.query<SeriesRow & Record<string, unknown>>('SELECT id, exchange, symbol FROM series WHERE id = $1', [id]);
    return row ?? null;
  }

  /** The series of one symbol on every venue. */
  async ofSymbol(symbol: string): Promise<SeriesRow[]> {
    return this.db.query<SeriesRow & Record<string, unknown>>('SELECT id, exchange, symbol FROM series WHERE symbol = $1 ORDER BY id', [symbol]);
  }

  async isEmpty(): Promise<boolean> {
    const [{ any }] = await this.db.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM series) AS any');
    return !any;
  }
}
