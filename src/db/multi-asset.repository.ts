/**
 * The multi-asset read: one field of several series, aligned by time. The field lives in
 * candles, funding rates, features or derivatives (domain/multi-asset.ts says which); table and column
 * names come from that fixed description, never from user input.
 */
import { seriesOfTexts, type MultiAssetSource, type SeriesValues } from '../domain/multi-asset';
import type { SqlSession } from './database';
import { mergeMarks, readMarked, type WatermarkScope } from './watermarks.repository';
import type { DatabaseEngine } from './engine-layout';
import { sqlEpochSeconds } from './sql';

/**
 * Statements one read is split over (PostgreSQL's own default of parallel workers per query):
 * a page of many series is one scan per series, and a statement runs on one core.
 */
const STATEMENTS = 2;
/** Citus: router statements in flight at once (each holds a pool connection; DATABASE_POOL_SIZE is 10 by default). */
const CITUS_IN_FLIGHT = 4;

/** `fn` over `items`, at most `n` at a time. */
async function eachInFlight<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const next = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, next));
}

/** `xs` in at most `n` consecutive parts of nearly equal length, none empty. */
function split<T>(xs: readonly T[], n: number): T[][] {
  const size = Math.max(1, Math.ceil(xs.length / n));
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

const TABLES: Record<MultiAssetSource['kind'], string> = { candles: 'candles', funding: 'funding_rates', features: 'features', derivatives: 'derivatives' };

export class MultiAssetRepository {
  constructor(
    private readonly db: SqlSession,
    /** DATABASE_ENGINE: Citus cannot push down the per-series LATERAL form below. */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {}

  /**
   * Per series, its first `limit` values (null values count as none) in [start, end],
   * ascending by time: every time of a page of `limit` distinct times is among them
   * (domain/multi-asset.ts `alignSeries` merges them).
   *
   * One range scan per series, each folded by PostgreSQL into two texts (epoch seconds and the
   * stored values, comma-separated): a row per value, and PostgreSQL's to_char, round() and
   * sort of every value, cost several times the scans (bench/README.md). Values are rendered
   * in JS with `source.places`, as the candle pages do (fixedPlaces is `round(x, places)::text`).
   */
  async values(
    ids: readonly number[],
    source: MultiAssetSource,
    start: Date,
    end: Date,
    limit: number,
    scope: WatermarkScope | null,
  ): Promise<{ values: Map<number, SeriesValues>; mark: string | null }> {
    const table = TABLES[source.kind];
    const { column, timeframe } = source;
    const tfFilter = timeframe === null ? '' : `AND timeframe = '${timeframe}'`;
    // One series' first `limit` values folded into two texts (the aggregates read the ordered
    // subquery in its order; alignSeries still checks it).
    const fold = (seriesId: string) => `SELECT string_agg(${sqlEpochSeconds('x.time')}::text, ',') AS times, string_agg(x.v::text, ',') AS vals
          FROM (
            SELECT time, ${column} AS v FROM ${table}
            WHERE series_id = ${seriesId} ${tfFilter} AND time >= $2 AND time <= $3 AND ${column} IS NOT NULL
            ORDER BY time LIMIT $4
          ) x`;
    type Row = { id: number; times: string | null; vals: string | null };
    const out = new Map<number, SeriesValues>();
    const marks: string[] = [];
    // Each statement reads the watermark of its own series with its rows (one snapshot each);
    // the parts' watermarks merge into the page's.
    const read = async (sql: string, part: number[]) => {
      const partScope = scope === null ? null : { ...scope, seriesIds: part };
      const { rows, mark } = await readMarked<Row>(this.db, sql, 3, [part.length === 1 && this.engine === 'citus' ? part[0] : part, start, end, limit], partScope);
      if (mark !== null) marks.push(mark);
      for (const r of rows) if (r.times !== null && r.vals !== null) out.set(Number(r.id), seriesOfTexts(r.times, r.vals));
    };
    if (this.engine === 'citus') {
      // Citus cannot push the LATERAL over unnest down: one router statement per series (a
      // filter on the distribution column), each answered by the worker holding it, several in
      // flight so the workers scan at once.
      await eachInFlight(ids, CITUS_IN_FLIGHT, (id) => read(`SELECT $1::int AS id, v.* FROM (${fold('$1::int')}) v`, [id]));
    } else {
      // The series split over a few statements on their own connections, so several backends
      // scan at once.
      await eachInFlight(split(ids, STATEMENTS), STATEMENTS, (part) =>
        read(`SELECT s.id, v.times, v.vals FROM unnest($1::int[]) AS s(id) CROSS JOIN LATERAL (${fold('s.id')}) v`, part),
      );
    }
    return { values: out, mark: scope === null || marks.length === 0 ? null : mergeMarks(marks) };
  }
}
