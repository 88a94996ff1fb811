/**
 * The table layout of DATABASE_ENGINE (docs/SCALING.md, Beyond one node), made by the migrator
 * after the migrations, under their lock, and safe to run again. TimescaleDB: the time-series
 * tables become compressed hypertables. Citus: `series` a reference table, every other table
 * with a `series_id` distributed by it, colocated. A LIST-partitioned table is converted by
 * copy and swap (every row kept, counted); then the service's partition job stands aside.
 */
import type { SqlSession } from './database';

export const DATABASE_ENGINES = ['postgres', 'timescaledb', 'citus'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];

export function isDatabaseEngine(v: string): v is DatabaseEngine {
  return (DATABASE_ENGINES as readonly string[]).includes(v);
}

/** The hypertables: chunked by time, compressed per series (and timeframe) in time order. */
export const HYPERTABLES: ReadonlyArray<{ table: string; chunk: string; segmentBy: string }> = [
  { table: 'candles', chunk: '30 days', segmentBy: 'series_id, timeframe' },
  { table: 'features', chunk: '30 days', segmentBy: 'series_id, timeframe' },
  { table: 'derivatives', chunk: '30 days', segmentBy: 'series_id, timeframe' },
  { table: 'funding_rates', chunk: '365 days', segmentBy: 'series_id' },
];

/**
 * Chunks whose range ended this long ago are compressed by TimescaleDB's policy: past the
 * late writes (gap repairs, rollups, feature recomputes) of the recent days, which would
 * otherwise decompress what they touch.
 */
export const COMPRESS_AFTER = '7 days';

/** The table that colocates the distributed ones on Citus (the first distributed). */
const COLOCATE_WITH = 'candles';

/** Give the database the layout of `engine`; returns what it changed ([] when already in place). */
export async function applyEngineLayout(s: SqlSession, engine: DatabaseEngine): Promise<string[]> {
  if (engine === 'timescaledb') return timescaleLayout(s);
  if (engine === 'citus') return citusLayout(s);
  return [];
}

async function timescaleLayout(s: SqlSession): Promise<string[]> {
  await s.query('CREATE EXTENSION IF NOT EXISTS timescaledb');
  const done = new Set(
    (await s.query<{ name: string }>(`SELECT hypertable_name AS name FROM timescaledb_information.hypertables WHERE hypertable_schema = current_schema()`)).map((r) => r.name),
  );
  const changed: string[] = [];
  for (const h of HYPERTABLES) {
    if (done.has(h.table) || !(await exists(s, h.table))) continue;
    await inTransaction(s, async () => {
      await copyAndSwap(s, h.table, async () => {
        await s.query(`SELECT create_hypertable('"${h.table}"', by_range('time', INTERVAL '${h.chunk}'), create_default_indexes => false)`);
      });
      await s.query(`ALTER TABLE "${h.table}" SET (timescaledb.compress, timescaledb.compress_segmentby = '${h.segmentBy}', timescaledb.compress_orderby = 'time')`);
      await s.query(`SELECT add_compression_policy('"${h.table}"', INTERVAL '${COMPRESS_AFTER}')`);
    });
    changed.push(`${h.table}: hypertable`);
  }
  return changed;
}

async function citusLayout(s: SqlSession): Promise<string[]> {
  await s.query('CREATE EXTENSION IF NOT EXISTS citus');
  const placed = async () =>
    new Map(
      (await s.query<{ name: string; kind: string }>(`SELECT logicalrelid::regclass::text AS name, partmethod AS kind FROM pg_dist_partition`)).map((r) => [
        r.name.replace(/"/g, ''),
        r.kind,
      ]),
    );
  const before = await placed();
  // Every table of the schema holding a series' rows, whatever later migrations add.
  const tables = (
    await s.query<{ name: string; partitioned: boolean }>(
      `SELECT c.relname AS name, c.relkind = 'p' AS partitioned FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
         AND a.attname = 'series_id' AND NOT a.attisdropped AND c.relname <> 'series'
       ORDER BY c.relname <> '${COLOCATE_WITH}', c.relname`,
    )
  ).filter((t) => !before.has(t.name));
  if (before.has('series') && !tables.length) return [];
  const changed: string[] = [];
  // Foreign keys to `series` are set aside while it becomes a reference table and the others
  // are distributed (Citus refuses a key between a local and a reference table), then restored.
  const keys = await s.query<{ tbl: string; name: string; def: string }>(
    `SELECT conrelid::regclass::text AS tbl, conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE contype = 'f' AND confrelid = 'series'::regclass`,
  );
  for (const k of keys) await s.query(`ALTER TABLE ${k.tbl} DROP CONSTRAINT "${k.name}"`);
  if (!before.has('series')) {
    await s.query(`SELECT create_reference_table('series')`);
    await truncateLocal(s, 'series');
    changed.push('series: reference table');
  }
  for (const t of tables) {
    const colocate = t.name === COLOCATE_WITH || !(await placed()).has(COLOCATE_WITH) ? 'default' : COLOCATE_WITH;
    const distribute = () => s.query(`SELECT create_distributed_table('"${t.name}"', 'series_id', colocate_with => '${colocate}')`);
    if (t.partitioned) {
      // Citus distributes one level of partitions, not the service's two: a plain table.
      await inTransaction(s, async () => {
        await s.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
        await copyAndSwap(s, t.name, distribute);
      });
    } else {
      await distribute();
      await truncateLocal(s, t.name);
    }
    changed.push(`${t.name}: distributed by series_id`);
  }
  // Citus cascades no update of a distribution column; the service never changes a series' id.
  for (const k of keys) await s.query(`ALTER TABLE ${k.tbl} ADD CONSTRAINT "${k.name}" ${k.def.replace(/ ON UPDATE (CASCADE|SET NULL|SET DEFAULT)/, '')}`);
  return changed;
}

/** create_distributed_table copies a table's rows to the shards and leaves the local ones hidden: free their space. */
async function truncateLocal(s: SqlSession, table: string): Promise<void> {
  await s.query(`SELECT truncate_local_data_after_distributing_table('"${table}"')`);
}

async function exists(s: SqlSession, table: string): Promise<boolean> {
  const [r] = await s.query<{ found: boolean }>(`SELECT to_regclass(format('%I', $1::text)) IS NOT NULL AS found`, [table]);
  return r.found;
}

async function inTransaction(s: SqlSession, fn: () => Promise<void>): Promise<void> {
  await s.query('BEGIN');
  try {
    await fn();
    await s.query('COMMIT');
  } catch (err) {
    await s.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Replace `table` by a plain table of the same columns, defaults and primary key, given its
 * engine layout by `place` while empty, then filled with every row of the old one (counted)
 * before the old one is dropped: about twice the table's size in free disk meanwhile.
 */
async function copyAndSwap(s: SqlSession, table: string, place: () => Promise<unknown>): Promise<void> {
  const old = `${table}_before_engine`;
  const [pk] = await s.query<{ name: string; cols: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS cols FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
    [table],
  );
  await s.query(`ALTER TABLE "${table}" RENAME TO "${old}"`);
  await s.query(`ALTER TABLE "${old}" RENAME CONSTRAINT "${pk.name}" TO "${old}_pkey"`);
  await s.query(`CREATE TABLE "${table}" (LIKE "${old}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await s.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${pk.name}" ${pk.cols}`);
  await place();
  const order = /\(([^)]*)\)/.exec(pk.cols)![1];
  await s.query(`INSERT INTO "${table}" SELECT * FROM "${old}" ORDER BY ${order}`);
  const [copied] = await s.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
  const [had] = await s.query<{ n: string }>(`SELECT count(*) AS n FROM "${old}"`);
  if (String(copied.n) !== String(had.n)) throw new Error(`${table}: copied ${copied.n} rows of ${had.n}`);
  await s.query(`DROP TABLE "${old}"`);
}
