/**
 * Time partitions of candles, features and derivatives (docs/ARCHITECTURE.md, Storage model): a table per
 * timeframe, ranged by month or year, with no DEFAULT partition, so writers call `ensure` first.
 * `mds_ensure_partitions` creates them on a connection of its own, committed at once, so the
 * writer's later statements see them (PostgreSQL routes each statement by the partitions committed
 * when it starts). Retention detaches CONCURRENTLY, then drops. On an engine's layout
 * (engine-layout.ts) the engine manages its own partitions: retention deletes rows, then drops chunks.
 */
import type { Database, SqlSession } from './database';
import { FEATURE_TIMEFRAMES, type FeatureTimeframe } from '../domain/timeframe';
import { PARTITION_PERIOD, nextPeriod, periodStart } from './partition-periods';
import { WatermarksRepository } from './watermarks.repository';

export { PARTITION_PERIOD, nextPeriod, periodStart, type PartitionPeriod } from './partition-periods';

/** The shortest retention of any timeframe (RETENTION_*): no partition ending later than this long ago is ever dropped. */
export const MIN_RETENTION_MS = 8 * 86_400_000;

export type PartitionedTable = 'candles' | 'features' | 'derivatives';

/** The tables a timeframe has partitions in. */
export function tablesOf(timeframe: FeatureTimeframe): PartitionedTable[] {
  return timeframe === 'funding' ? ['features'] : ['candles', 'features', 'derivatives'];
}

/** The name of the partition of `table` holding `timeframe`'s period that starts at `startMs` (as mds_ensure_partitions names it). */
export function partitionName(table: PartitionedTable, timeframe: FeatureTimeframe, startMs: number): string {
  const d = new Date(startMs);
  const month = PARTITION_PERIOD[timeframe] === 'month' ? `_${String(d.getUTCMonth() + 1).padStart(2, '0')}` : '';
  return `${table}_${timeframe}_${d.getUTCFullYear()}${month}`;
}

/** The names of the partitions of `table` and `timeframe` whose periods meet [fromMs, toMs] (existing or not). */
export function partitionsCovering(table: PartitionedTable, timeframe: FeatureTimeframe, fromMs: number, toMs: number): string[] {
  const out: string[] = [];
  for (let p = periodStart(timeframe, fromMs); p <= toMs; p = nextPeriod(timeframe, p)) out.push(partitionName(table, timeframe, p));
  return out;
}

/** A span of rows about to be written, both ends included. */
export interface TimeSpan {
  timeframe: FeatureTimeframe;
  fromMs: number;
  toMs: number;
  /** The table written (its partitions only); absent: every table of the timeframe. */
  table?: PartitionedTable;
}

/** One partition in place. */
export interface PartitionInfo {
  table: PartitionedTable;
  timeframe: FeatureTimeframe;
  name: string;
  /** The period it holds: [startMs, endMs). */
  startMs: number;
  endMs: number;
  /** A detach that did not finish (the process stopped during retention). */
  detachPending: boolean;
}

/** Where a bulk write of one timeframe goes (bulkUpsert's `table` and `leafOf`). */
export interface BulkTarget {
  table: string;
  /** The leaf partition of a row, from its time (Unix ms); absent when the engine keeps its own partitions. */
  leafOf?: (timeMs: number) => string;
}

/** What a writer's repositories ask of the partitions: those of the spans they are about to write. */
export interface PartitionGuard {
  ensure(spans: readonly TimeSpan[]): Promise<unknown>;
  /**
   * Where a bulk write of one timeframe goes: when the service manages the partitions, the
   * timeframe's own table (`candles_1m`) and, row by row, its leaves (`candles_1m_2024_01`),
   * which spares PostgreSQL the routing of every row (bench/README.md); else the table itself.
   */
  bulkTarget(table: PartitionedTable, timeframe: FeatureTimeframe): Promise<BulkTarget>;
}

/** The guard of repositories that only read (the read replicas' facet): a write there is a bug. */
export const READ_ONLY: PartitionGuard = {
  ensure: () => Promise.reject(new Error('these repositories only read')),
  bulkTarget: () => Promise.reject(new Error('these repositories only read')),
};

/**
 * The leaf of `table`'s `timeframe` holding a row of time `timeMs`. A leaf that retention
 * detached is only ever one whose rows retention removes anyway.
 */
export function leafOf(table: PartitionedTable, timeframe: FeatureTimeframe): (timeMs: number) => string {
  return (ms) => partitionName(table, timeframe, periodStart(timeframe, ms));
}

const NAME = /^(candles|features|derivatives)_(1m|5m|15m|1h|4h|1d|funding)_(\d{4})(?:_(\d{2}))?$/;

export class Partitions {
  /**
   * `table:timeframe:periodStart` of the partitions known to exist, so the live path's writes
   * cost nothing here. Only those ending within MIN_RETENTION_MS: an older one may be dropped by
   * another process's retention, so a write that old asks the database again.
   */
  private readonly known = new Set<string>();
  /** Whether `candles` has the service's partitions (asked once). */
  private layout: Promise<boolean> | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The guard of the repositories of one session (a writer's transaction): on PGlite it runs the DDL itself. */
  on(session: SqlSession): PartitionGuard {
    return {
      ensure: (spans) => this.ensure(spans, session),
      bulkTarget: async (table, timeframe) => ((await this.managed(session)) ? { table: `${table}_${timeframe}`, leafOf: leafOf(table, timeframe) } : { table }),
    };
  }

  /**
   * Create the missing partitions of `spans`. `within`: the session the caller writes on, if it
   * holds a transaction (PGlite runs the DDL there; PostgreSQL on a connection of its own).
   */
  async ensure(spans: readonly TimeSpan[], within?: SqlSession): Promise<number> {
    let created = 0;
    if (!(await this.managed(within))) return 0;
    const horizon = this.clock() - MIN_RETENTION_MS;
    for (const { timeframe, fromMs, toMs, table } of spans) {
      if (!(fromMs <= toMs)) continue;
      const tables = table ? [table] : tablesOf(timeframe);
      const first = periodStart(timeframe, fromMs);
      let missing = false;
      for (let p = first; p <= toMs && !missing; p = nextPeriod(timeframe, p)) missing = tables.some((t) => !this.known.has(`${t}:${timeframe}:${p}`));
      if (!missing) continue;
      const runner = this.db.autonomous ?? within ?? this.db;
      const [r] = await runner.query<{ n: number }>('SELECT mds_ensure_partitions($1, $2, $3, $4::text[]) AS n', [timeframe, new Date(fromMs), new Date(toMs), table ? [table] : null]);
      created += r.n;
      for (let p = first; p <= toMs; p = nextPeriod(timeframe, p)) {
        if (nextPeriod(timeframe, p) > horizon) for (const t of tables) this.known.add(`${t}:${timeframe}:${p}`);
      }
    }
    return created;
  }

  /**
   * Whether the service manages the partitions: `candles` is LIST-partitioned (by timeframe), as
   * the migration made it. Asked once per process, on `within` on PGlite (inside a transaction
   * its one connection is the transaction's).
   */
  managed(within?: Pick<SqlSession, 'query'>): Promise<boolean> {
    this.layout ??= (this.db.kind === 'pglite' && within ? within : this.db)
      .query<{ managed: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
                        WHERE c.relname = 'candles' AND c.relnamespace = current_schema()::regnamespace AND p.partstrat = 'l') AS managed`,
      )
      .then((r) => r[0].managed);
    this.layout.catch(() => (this.layout = undefined));
    return this.layout;
  }

  /** Every partition of the tables, by table, timeframe and time. */
  async list(session: Pick<SqlSession, 'query'> = this.db): Promise<PartitionInfo[]> {
    const rows = await session.query<{ name: string; pending: boolean }>(
      `SELECT c.relname AS name, i.inhdetachpending AS pending
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       WHERE p.relname = ANY($1::text[])`,
      [FEATURE_TIMEFRAMES.flatMap((tf) => tablesOf(tf).map((t) => `${t}_${tf}`))],
    );
    const out: PartitionInfo[] = [];
    for (const r of rows) {
      const m = NAME.exec(r.name);
      // A partition someone added by hand under another name is left alone.
      if (!m) continue;
      const timeframe = m[2] as FeatureTimeframe;
      const startMs = Date.UTC(Number(m[3]), m[4] === undefined ? 0 : Number(m[4]) - 1, 1);
      out.push({ table: m[1] as PartitionedTable, timeframe, name: r.name, startMs, endMs: nextPeriod(timeframe, startMs), detachPending: r.pending });
    }
    const rank = (tf: FeatureTimeframe) => FEATURE_TIMEFRAMES.indexOf(tf);
    return out.sort((a, b) => a.table.localeCompare(b.table) || rank(a.timeframe) - rank(b.timeframe) || a.startMs - b.startMs);
  }

  /**
   * Fresh planner statistics for the partitions of `tables` holding [fromMs, toMs], every
   * timeframe: after bulk writes, and for the current period (where live writes go). PGlite
   * never analyzes, and a partition created ahead holds no statistics until something does.
   * The cost follows the span, not the history stored. In a session: no statement timeout
   * (it may wait behind a vacuum).
   */
  async analyzeSpan(tables: readonly PartitionedTable[], fromMs: number, toMs: number): Promise<void> {
    const names = FEATURE_TIMEFRAMES.flatMap((tf) => tablesOf(tf).filter((t) => tables.includes(t)).flatMap((t) => partitionsCovering(t, tf, fromMs, toMs)));
    await this.db.session(async (s) => {
      const existing = await s.query<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relname = ANY($1::text[]) AND relkind = 'r'`, [names]);
      if (existing.length) await s.exec(`ANALYZE ${existing.map((r) => `"${r.name}"`).join(', ')}`);
    });
  }

  /**
   * Drop the partitions of `timeframe` (every table) whose whole period ends at or before
   * `cutoffMs`; returns their names. Not in a transaction: DETACH ... CONCURRENTLY waits for the
   * transactions that may still read them, without blocking anyone.
   */
  async dropBefore(timeframe: FeatureTimeframe, cutoffMs: number): Promise<string[]> {
    if (cutoffMs > this.clock() - MIN_RETENTION_MS) throw new Error(`retention of ${timeframe} shorter than 8 days`);
    if (!(await this.managed())) return this.dropOnEngine(timeframe, cutoffMs);
    return this.db.session(async (s) => {
      const dropped: string[] = [];
      for (const p of await this.list(s)) {
        if (p.timeframe !== timeframe || p.endMs > cutoffMs) continue;
        const parent = `${p.table}_${p.timeframe}`;
        await s.query(`ALTER TABLE "${parent}" DETACH PARTITION "${p.name}" ${p.detachPending ? 'FINALIZE' : 'CONCURRENTLY'}`);
        // Its rows are gone from reads once the detach returns (it cannot share a transaction).
        await new WatermarksRepository(s).movePeriod(p.timeframe, p.startMs);
        await s.query(`DROP TABLE "${p.name}"`);
        dropped.push(p.name);
      }
      return dropped;
    });
  }

  /**
   * Retention on an engine's layout (engine-layout.ts): the timeframe's rows before the cutoff
   * are deleted (on TimescaleDB whole compressed batches, which are segmented by timeframe),
   * then `drop_chunks` drops the chunks that held nothing else. Returns the chunks dropped.
   */
  private async dropOnEngine(timeframe: FeatureTimeframe, cutoffMs: number): Promise<string[]> {
    const cutoff = new Date(cutoffMs);
    return this.db.session(async (s) => {
      const [{ timescale }] = await s.query<{ timescale: boolean }>(`SELECT to_regclass('timescaledb_information.chunks') IS NOT NULL AS timescale`);
      const dropped: string[] = [];
      for (const table of tablesOf(timeframe)) {
        await s.query(`DELETE FROM "${table}" WHERE timeframe = $1 AND "time" < $2`, [timeframe, cutoff]);
        // Pages that held those rows must not revalidate as unchanged.
        await new WatermarksRepository(s).moveBefore(timeframe, cutoffMs);
        if (!timescale) continue;
        const chunks = await s.query<{ name: string; from: Date; to: Date }>(
          `SELECT chunk_name AS name, range_start AS "from", range_end AS "to" FROM timescaledb_information.chunks
           WHERE hypertable_schema = current_schema() AND hypertable_name = $1 AND range_end <= $2 ORDER BY range_start`,
          [table, cutoff],
        );
        for (const c of chunks) {
          const [{ empty }] = await s.query<{ empty: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM "${table}" WHERE "time" >= $1 AND "time" < $2) AS empty`, [c.from, c.to]);
          if (!empty) continue;
          await s.query(`SELECT drop_chunks($1::regclass, older_than => $2::timestamptz, newer_than => $3::timestamptz)`, [table, c.to, c.from]);
          dropped.push(c.name);
        }
      }
      return dropped;
    });
  }
}
