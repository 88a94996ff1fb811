/**
 * Candles: the hot page read (its SQL and rendering in candle-pages.ts), coverage, bulk upserts
 * at COPY speed (rows laid out by candle-rows.ts), rollups, the feature precompute's history
 * (candle-history.ts), and the candle reads behind the quality score.
 *
 * Page reads take a list of series, so one statement serves one REST request or a whole
 * DataLoader batch of GraphQL fields.
 */
import { BinaryRows } from '../encoding/binary-rows';
import type { CandleInput } from '../domain/csv-rows';
import type { RollupBars } from '../domain/imported-bars';
import { apiTimeOfEpoch } from '../domain/candle-text';
import { pageOf, type Coverage, type TextRow } from '../domain/market';
import { TIMEFRAME_MS, finerTimeframe, rollupSpans, type CandleTimeframe } from '../domain/timeframe';
import { bulkUpsert, timeSpanOf, type CopyChunks } from './bulk-upsert';
import { moveWatermarks, readMarked, type MarkedPage, type WatermarkScope } from './watermarks.repository';
import { FLOW_PAGE_SQL, FLOW_PAGES_SQL, PAGE_SQL, PAGES_SQL, pageColumns } from './candle-pages';
import { HISTORY_SQL, historyOf, type CandleHistory } from './candle-history';
import { CANDLE_LAYOUT, candleRowFrame, rollupCopyChunks, writeInputRows, type CandleRowFrame } from './candle-rows';
import { COVERAGE_ONE_SQL, COVERAGE_SQL, MEAN_BASIS_SQL, ROLLUP_SQL } from './candle-derivations';
import type { DatabaseEngine } from './engine-layout';
import type { QueryOptions, SqlSession } from './database';
import { READ_ONLY, type PartitionGuard } from './partitions';
import { sqlEpochMs } from './sql';

export type { CandleHistory };

export interface CoverageRow extends Coverage {
  seriesId: number;
  /** On the funding row: the interval of the newest settlement, in hours. */
  hours: number | null;
}

/** Recompute the timeframes coarser than `from` over the buckets covering [startMs, endMs]. */
export interface RollupRange {
  seriesId: number;
  /** The finest timeframe whose candles changed. */
  from: CandleTimeframe;
  startMs: number;
  endMs: number;
}

/** COPY statements of about 8 MB (60,000 1m rows), the file read 16 MB ahead (see bulkUpsert). */
const IMPORT_PARTS = { chars: 8 << 20, readAhead: 16 << 20 };

/** The hot page reads: fixed texts (prepared once per connection), rows as PostgreSQL's text. */
const TEXT_ROWS: QueryOptions = { prepare: true, textRows: true };

export class CandlesRepository {
  constructor(
    private readonly db: SqlSession,
    /** The time partitions of what it writes (partitions.ts). */
    private readonly partitions: PartitionGuard = READ_ONLY,
    /** DATABASE_ENGINE: selects the statement forms an engine needs (engine-layout.ts). */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {}

  // ---- reads served by the API -----------------------------------------------------------

  /**
   * One series' page (a REST request): up to `limit` rows in [start, end] as text in
   * CANDLE_TEXT's layout, with their trade flow when `flow`, and the watermark of `scope` read
   * in the same statement when one is given.
   */
  async page(id: number, timeframe: CandleTimeframe, start: Date, end: Date, limit: number, flow: boolean, scope: WatermarkScope | null): Promise<MarkedPage<TextRow>> {
    const params = [id, timeframe, start, end, limit + 1];
    const { rows, mark } = await readMarked<TextRow>(this.db, flow ? FLOW_PAGE_SQL : PAGE_SQL, pageColumns(flow), params, scope, TEXT_ROWS);
    return { page: pageOf(rows, limit, (r) => apiTimeOfEpoch(r[0]!)), mark };
  }

  /** Up to `limit` rows per series (a GraphQL batch), as `page` gives them, without watermarks. */
  async pages(ids: readonly number[], timeframe: CandleTimeframe, start: Date, end: Date, limit: number, flow: boolean): Promise<Map<number, TextRow[]>> {
    const one = (id: number) => this.db.query<TextRow>(flow ? FLOW_PAGE_SQL : PAGE_SQL, [id, timeframe, start, end, limit], TEXT_ROWS);
    // Citus cannot push down the per-series LATERAL form: one statement per series, each on its worker.
    if (ids.length === 1 || this.engine === 'citus') return new Map(await Promise.all(ids.map(async (id): Promise<[number, TextRow[]]> => [id, await one(id)])));
    const rows = await this.db.query<TextRow>(flow ? FLOW_PAGES_SQL : PAGES_SQL, [ids, timeframe, start, end, limit], TEXT_ROWS);
    // The series id follows the row's columns.
    const idAt = pageColumns(flow);
    const out = new Map<number, TextRow[]>();
    for (const r of rows) {
      const id = Number(r[idAt]);
      let list = out.get(id);
      if (!list) out.set(id, (list = []));
      list.push(r);
    }
    return out;
  }

  /**
   * First and last closed candle per series and timeframe (index lookups, no scans), the first
   * and last funding time and context minute; timeframes without rows are left out.
   */
  async coverage(ids: readonly number[], now: Date): Promise<CoverageRow[]> {
    type Row = { series_id: number; timeframe: Coverage['timeframe']; first: string | null; last: string | null; hours: number | null };
    const rows =
      this.engine === 'citus'
        ? (await Promise.all(ids.map((id) => this.db.query<Row>(COVERAGE_ONE_SQL, [id, now])))).flat()
        : await this.db.query<Row>(COVERAGE_SQL, [ids, now]);
    const out: CoverageRow[] = [];
    for (const r of rows) if (r.first !== null) out.push({ seriesId: r.series_id, timeframe: r.timeframe, first: r.first, last: r.last, hours: r.hours });
    return out;
  }

  // ---- writes ------------------------------------------------------------------------------

  /**
   * Upsert candles of one series and timeframe from batches of validated rows (as imported:
   * derived = false), with their trade flow where given. `batches` may be called twice (see
   * bulkUpsert), each time from the start.
   * Must run on a transaction: one failing batch writes nothing.
   */
  async upsert(seriesId: number, timeframe: CandleTimeframe, batches: () => AsyncIterable<readonly CandleInput[]>): Promise<void> {
    const { fromMs, toMs } = await timeSpanOf(batches);
    await this.writeRows(seriesId, timeframe, { fromMs, toMs }, async function* (frame) {
      const out = new BinaryRows(64 * 1024);
      for await (const batch of batches()) {
        writeInputRows(out, frame, batch);
        if (out.length > 0) yield out.take();
      }
    });
  }

  /**
   * The same from rows already in binary COPY form: each row of `rows` is `frame.begin`, then
   * `time,open,high,low,close,volume` as `writeCandle` writes a validated row, then
   * `frame.end` (the import writes it straight from the file's bytes). `rows` may be
   * called twice, like `batches` above. The rows' span is given (the import scans its file
   * for it first): their partitions are created before the rows are read.
   */
  async upsertRows(
    seriesId: number,
    timeframe: CandleTimeframe,
    span: { fromMs: number; toMs: number },
    rows: (frame: CandleRowFrame) => AsyncIterable<Buffer>,
  ): Promise<void> {
    await this.writeRows(seriesId, timeframe, span, rows);
  }

  /**
   * Derived candles of one series (rollups computed while a first import read its file:
   * ImportedBars), valued as ROLLUP_SQL would store them, trade flow NULL. For buckets that
   * hold no candle yet; must run on a transaction.
   */
  async insertRollups(seriesId: number, bars: RollupBars): Promise<void> {
    const n = bars.length;
    if (n === 0) return;
    const span = { fromMs: bars.time(0), toMs: bars.time(n - 1) };
    await this.writeRows(seriesId, bars.timeframe, span, async function* (frame) {
      yield* rollupCopyChunks(frame, bars);
    }, true);
  }

  /**
   * Rows encoded elsewhere (the demo seed's worker) in `candleRowFrame(seriesId, timeframe,
   * derived)`, spanning `span`: written as `upsertRows` and `insertRollups` write theirs.
   */
  async writeEncoded(seriesId: number, rows: CopyChunks<CandleTimeframe> & { derived: boolean }): Promise<void> {
    await this.writeRows(seriesId, rows.timeframe, rows.span, async function* () {
      yield* rows.chunks;
    }, rows.derived);
  }

  /** Whether the series has no candle of any timeframe. */
  async isEmpty(seriesId: number): Promise<boolean> {
    const [r] = await this.db.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM candles WHERE series_id = $1) AS empty', [seriesId]);
    return r.empty;
  }

  private async writeRows(
    seriesId: number,
    timeframe: CandleTimeframe,
    span: { fromMs: number; toMs: number },
    rows: (frame: CandleRowFrame) => AsyncIterable<Buffer>,
    derived = false,
  ): Promise<void> {
    // The rows' partitions first (an empty span makes none).
    await this.partitions.ensure([{ table: 'candles', timeframe, ...span }]);
    const frame = candleRowFrame(seriesId, timeframe, derived);
    const target = await this.partitions.bulkTarget('candles', timeframe);
    await bulkUpsert(this.db, { ...target, ...CANDLE_LAYOUT }, () => rows(frame), { parts: IMPORT_PARTS });
    await moveWatermarks(this.db, [seriesId], timeframe, span.fromMs, span.toMs);
  }

  /**
   * Recompute every timeframe coarser than `range.from`, each from the next finer one, over the
   * whole buckets that contain [startMs, endMs] (each timeframe divides the next, so the buckets
   * a change reaches at one level contain those it reaches at the finer one).
   */
  async rollUp(range: RollupRange, nowMs: number): Promise<void> {
    for (const s of rollupSpans(range.from, range.startMs, range.endMs, nowMs)) {
      const p = TIMEFRAME_MS[s.timeframe];
      await this.partitions.ensure([{ table: 'candles', timeframe: s.timeframe, fromMs: s.startMs, toMs: s.endMs - p }]);
      const params = [range.seriesId, s.timeframe, `${p / 1000} seconds`, finerTimeframe(s.timeframe), new Date(s.startMs), new Date(s.endMs), new Date(nowMs)];
      await this.db.query(ROLLUP_SQL, params, { prepare: true });
      await moveWatermarks(this.db, [range.seriesId], s.timeframe, s.startMs, s.endMs - p);
    }
  }

  // ---- reads of the derivations ------------------------------------------------------------

  /** First and last time of the candles imported (not derived) per series and timeframe. */
  async importedSpans(): Promise<Array<{ seriesId: number; timeframe: CandleTimeframe; first: number; last: number }>> {
    return this.db.query(
      `SELECT series_id AS "seriesId", timeframe, ${sqlEpochMs('min(time)')} AS first, ${sqlEpochMs('max(time)')} AS last
       FROM candles WHERE NOT derived GROUP BY series_id, timeframe`,
    );
  }

  /** Open time of the first candle of a series and timeframe, or null. */
  async firstOpen(seriesId: number, timeframe: CandleTimeframe): Promise<number | null> {
    const [r] = await this.db.query<{ t: number | null }>(
      `SELECT ${sqlEpochMs('min(time)')} AS t FROM candles WHERE series_id = $1 AND timeframe = $2`,
      [seriesId, timeframe],
    );
    return r.t;
  }

  /** First and last open time of the candles opening at or before `upTo`. */
  async openSpan(seriesId: number, timeframe: CandleTimeframe, upTo: Date): Promise<{ first: number | null; last: number | null }> {
    const [span] = await this.db.query<{ first: number | null; last: number | null }>(
      `SELECT ${sqlEpochMs('min(time)')} AS first, ${sqlEpochMs('max(time)')} AS last
       FROM candles WHERE series_id = $1 AND timeframe = $2 AND time <= $3`,
      [seriesId, timeframe, upTo],
    );
    return span;
  }

  /** Open time and close (as a float) of the candles in [from, to], ascending. */
  async closes(seriesId: number, timeframe: CandleTimeframe, from: Date, to: Date): Promise<Array<{ time: number; close: number }>> {
    // As text rows (float8's text reads back as the same double): the quality job reads a
    // month of minutes per series, which PGlite's row objects made the larger part of its time.
    const rows = await this.db.query<TextRow>(
      `SELECT ${sqlEpochMs('time')} AS time, close::float8 AS close FROM candles
       WHERE series_id = $1 AND timeframe = $2 AND time >= $3 AND time <= $4 ORDER BY candles.time`,
      [seriesId, timeframe, from, to],
      { prepare: true, textRows: true },
    );
    return rows.map((r) => ({ time: Number(r[0]), close: Number(r[1]) }));
  }

  /** Mean |perp - spot| / spot over the times both series have in [from, to]; null when none (MEAN_BASIS_SQL). */
  async meanBasis(perpId: number, spotId: number, timeframe: CandleTimeframe, from: Date, to: Date): Promise<number | null> {
    const [b] = await this.db.query<{ basis: number | null }>(
      MEAN_BASIS_SQL,
      [perpId, spotId, timeframe, from, to],
    );
    return b.basis;
  }

  // ---- the feature precompute's reads -----------------------------------------------------------

  /**
   * The candles the feature precompute computes a step on, oldest first, as floats: up to
   * `lookback` bars before `fromMs` and up to `limit` bars from `fromMs` on (null: from the
   * first bar), in one statement.
   */
  async history(seriesId: number, timeframe: CandleTimeframe, fromMs: number | null, lookback: number, limit: number): Promise<CandleHistory> {
    const [r] = await this.db.query<{ s: string | null }>(
      HISTORY_SQL,
      [seriesId, timeframe, fromMs === null ? null : new Date(fromMs), lookback, limit],
      { prepare: true },
    );
    return historyOf(r.s);
  }
}
