/**
 * Write watermarks (docs/ARCHITECTURE.md, Read path: Revalidation): every writer moves the
 * watermarks of what it writes (series, timeframe, partition period) in its own transaction, with
 * `moveWatermarks` on its session; a page's watermark is read from the node its rows come from.
 * Versions come from one sequence, so a watermark never returns to a value it had.
 */
import type { Page } from '../domain/market';
import type { FeatureTimeframe } from '../domain/timeframe';
import type { Database, QueryOptions, SqlSession } from './database';
import { periodStart } from './partition-periods';

/** What a page's rows depend on: these series' rows of these timeframes in [startMs, endMs]. */
export interface WatermarkScope {
  seriesIds: readonly number[];
  timeframes: readonly FeatureTimeframe[];
  startMs: number;
  endMs: number;
}

/** A page read with the watermark of what it was read from (null: read without one). */
export interface MarkedPage<Row> {
  page: Page<Row>;
  mark: string | null;
}

/** Move the watermarks of `seriesIds` at `timeframe` for every period [fromMs, toMs] touches, in the caller's transaction. */
export async function moveWatermarks(s: Pick<SqlSession, 'query'>, seriesIds: readonly number[], timeframe: FeatureTimeframe, fromMs: number, toMs: number): Promise<void> {
  if (seriesIds.length === 0 || !(fromMs <= toMs)) return;
  await s.query('SELECT mds_move_watermarks($1::int[], $2, $3, $4)', [seriesIds, timeframe, new Date(fromMs), new Date(toMs)], { prepare: true });
}

/**
 * The watermark of a scope whose parameters start at $p (`markParams`): the database's id, the
 * epoch and the versions of the periods from its start's to its end's, ascending. Each version comes
 * from one sequence and is written to one period once, so the list is the state of those
 * periods: it changes whenever any of them moves or a period is first written. Sorted by value,
 * the lists of two statements over parts of a scope merge into the whole scope's (`mergeMarks`).
 */
const markSql = (p: number) => `SELECT e.database_id::text || '/' || e.version || '/' || coalesce((
    SELECT string_agg(w.version::text, ',' ORDER BY w.version)
    FROM watermarks w
    WHERE w.series_id = ANY($${p}::int[]) AND w.timeframe = ANY($${p + 1}::text[]) AND w.period_start >= $${p + 2} AND w.period_start <= $${p + 3}), '') AS mark
  FROM watermark_epoch e`;

const READ_SQL = markSql(1);

/**
 * The parameters of a scope's watermark, after a statement's own: its periods are those from the
 * one holding its start (the earliest such start of its timeframes: a coarser scope never hurts)
 * to the one holding its end.
 */
export function markParams(scope: WatermarkScope): unknown[] {
  const from = Math.min(...scope.timeframes.map((tf) => periodStart(tf, scope.startMs)));
  return [scope.seriesIds, scope.timeframes, new Date(from), new Date(scope.endMs)];
}

/**
 * A page statement (`columns` result columns, `params` parameters) that also reads the watermark
 * of the scope whose parameters follow its own: each page row gains a last column, NULL, and one
 * more row holds the watermark there. One statement sees one snapshot, so the rows and the
 * watermark agree without reading it before and after.
 */
export function withMarkRow(page: string, columns: number, params: number): string {
  return `SELECT p.*, NULL::text AS mark FROM (${page}) p
UNION ALL
SELECT ${'NULL, '.repeat(columns)}(${markSql(params + 1)})`;
}

/** The page rows of a `withMarkRow` statement, without its watermark row, and the watermark. */
export function takeMark<R>(rows: R[], markOf: (row: R) => string | null | undefined): { rows: R[]; mark: string } {
  // PostgreSQL appends the second branch after the first: the last row, unless a plan says otherwise.
  let at = rows.length - 1;
  if (at < 0 || typeof markOf(rows[at]) !== 'string') at = rows.findIndex((r) => typeof markOf(r) === 'string');
  if (at < 0) throw new Error('a watermarked read returned no watermark');
  const mark = markOf(rows[at])!;
  if (at === rows.length - 1) rows.pop();
  else rows.splice(at, 1);
  return { rows, mark };
}

/**
 * The rows of a page statement (`columns` result columns), with the watermark of `scope` read in
 * the same statement when one is given (`withMarkRow`). Rows as objects or, with `textRows`,
 * as arrays.
 */
export async function readMarked<R extends object>(
  db: Pick<SqlSession, 'query'>,
  page: string,
  columns: number,
  params: unknown[],
  scope: WatermarkScope | null,
  opts: QueryOptions = {},
): Promise<{ rows: R[]; mark: string | null }> {
  if (scope === null) return { rows: await db.query<R>(page, params, opts), mark: null };
  const rows = await db.query<R>(withMarkRow(page, columns, params.length), [...params, ...markParams(scope)], opts);
  const at = opts.textRows ? columns : 'mark';
  return takeMark(rows, (r) => (r as Record<string | number, string | null | undefined>)[at]);
}

/** The watermark of a scope read in parts (one statement each): null when the parts saw different epochs. */
export function mergeMarks(marks: readonly string[]): string | null {
  if (marks.length === 1) return marks[0];
  const parts = marks.map((m) => {
    const cut = m.indexOf('/', m.indexOf('/') + 1);
    return { head: m.slice(0, cut), versions: m.slice(cut + 1) };
  });
  if (parts.some((p) => p.head !== parts[0].head)) return null;
  const versions = parts.flatMap((p) => (p.versions === '' ? [] : p.versions.split(',')));
  versions.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return `${parts[0].head}/${versions.join(',')}`;
}

export class WatermarksRepository {
  constructor(private readonly db: Pick<SqlSession, 'query'>) {}

  /** The watermark of a page's rows: equal on two reads only if no write touched them between. */
  async read(scope: WatermarkScope): Promise<string> {
    const [r] = await this.db.query<{ mark: string }>(READ_SQL, markParams(scope), { prepare: true });
    return r.mark;
  }

  /**
   * Move the watermark of every series at `timeframe` in the period starting at `periodStartMs`
   * (retention dropped its partitions).
   */
  async movePeriod(timeframe: FeatureTimeframe, periodStartMs: number): Promise<void> {
    await this.db.query(`SELECT mds_move_watermarks(coalesce(array_agg(id ORDER BY id), '{}'), $1, $2, $2) FROM series`, [timeframe, new Date(periodStartMs)]);
  }

  /**
   * Move the watermark of every series at `timeframe` in every period before `cutoffMs` that
   * has one (retention deleted those rows on an engine's layout).
   */
  async moveBefore(timeframe: FeatureTimeframe, cutoffMs: number): Promise<void> {
    const [r] = await this.db.query<{ first: Date | null }>('SELECT min(period_start) AS first FROM watermarks WHERE timeframe = $1 AND period_start < $2', [timeframe, new Date(cutoffMs)]);
    if (r.first === null) return;
    await this.db.query(`SELECT mds_move_watermarks(coalesce(array_agg(id ORDER BY id), '{}'), $1, $2, $3) FROM series`, [timeframe, r.first, new Date(cutoffMs - 1)]);
  }

  /** Move the epoch: every page's watermark changes (`mds watermarks bump`, after writes made outside the service). */
  async bumpEpoch(): Promise<string> {
    const [r] = await this.db.query<{ version: string }>(
      `WITH moved AS (UPDATE watermark_epoch SET version = nextval('watermark_versions') RETURNING version)
       SELECT version::text AS version, pg_notify('${CHANNEL}', '*') FROM moved`,
    );
    return r.version;
  }
}

/** The channel every watermark move is announced on (mds_move_watermarks, and `bumpEpoch`). */
const CHANNEL = 'mds_watermarks';

/** A committed move: these series' watermarks at this timeframe, or every watermark. */
export type WatermarkMove = { timeframe: string; seriesIds: number[] } | 'all';

/**
 * Follow the watermarks' moves as their transactions commit (LISTEN): `onListening(false)` when
 * moves may have been missed, `true` when following (again). A message not understood counts
 * as every watermark moving. Returns the stop.
 */
export function followWatermarks(
  db: Pick<Database, 'listen'>,
  onMove: (move: WatermarkMove) => void,
  onListening: (listening: boolean) => void,
): Promise<() => Promise<void>> {
  return db.listen(CHANNEL, (payload) => onMove(moveOf(payload)), onListening);
}

function moveOf(payload: string): WatermarkMove {
  const m = /^([\w-]+):(\d+(?:,\d+)*)$/.exec(payload);
  return m ? { timeframe: m[1], seriesIds: m[2].split(',').map(Number) } : 'all';
}
