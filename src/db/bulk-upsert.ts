/**
 * Bulk writes at COPY speed with upsert semantics, all inside the caller's transaction.
 *
 * Small inputs (the live path's rows): one INSERT ... ON CONFLICT. Large ones, fast path:
 * COPY straight into the target table under a savepoint. That is the whole cost of a first
 * import. When the rows collide with stored ones (a re-import, or a duplicate
 * time inside the file), the savepoint is rolled back and the rows go through a temporary
 * staging table and `INSERT ... ON CONFLICT DO UPDATE` (last row of the file wins).
 */
import type { SqlSession } from './database';

export interface BulkUpsertSpec {
  table: string;
  /** Columns of every copied line, in order. */
  columns: readonly string[];
  /** Primary-key columns (a subset of `columns`). */
  key: readonly string[];
}

export interface BulkUpsertOptions {
  /**
   * Deletes the stored rows the input replaces, run before a large input's COPY so that the
   * COPY meets none of them. Without it, an input known to rewrite stored rows (a feature
   * tail recomputing its first bucket) is sent twice: the COPY that collides, then the
   * staging path.
   */
  clear?: () => Promise<unknown>;
}

const UNIQUE_VIOLATION = '23505';

/**
 * Inputs up to this size (the live path's few candles or feature rows) are upserted with one
 * INSERT ... ON CONFLICT: one round trip instead of the savepoint, the COPY and its release.
 */
const SMALL_INPUT_CHARS = 64 * 1024;

export async function bulkUpsert(
  tx: SqlSession,
  spec: BulkUpsertSpec,
  lines: () => AsyncIterable<string>,
  opts: BulkUpsertOptions = {},
): Promise<void> {
  // Read ahead far enough to tell a small input from a large one; a large one goes on from
  // where this stopped, so `lines` is still called at most twice.
  const it = lines()[Symbol.asyncIterator]();
  const head: string[] = [];
  let size = 0;
  let ended = false;
  while (size <= SMALL_INPUT_CHARS) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  if (ended && size === 0) return;
  if (ended && !head.some((chunk) => chunk.includes('"'))) return insertSmall(tx, spec, head.join(''));
  async function* all(): AsyncGenerator<string> {
    yield* head;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }

  await opts.clear?.();
  await tx.query('SAVEPOINT bulk_copy');
  try {
    await tx.copyFrom(spec.table, spec.columns, all());
    await tx.query('RELEASE SAVEPOINT bulk_copy');
    return;
  } catch (err) {
    await tx.query('ROLLBACK TO SAVEPOINT bulk_copy');
    if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
  }
  const stage = `stage_${spec.table}`;
  await tx.exec(
    `CREATE TEMP TABLE IF NOT EXISTS ${stage} (LIKE ${spec.table} INCLUDING DEFAULTS) ON COMMIT DROP;
     ALTER TABLE ${stage} ADD COLUMN IF NOT EXISTS line_no BIGSERIAL;
     TRUNCATE ${stage}`,
  );
  await tx.copyFrom(stage, spec.columns, lines());
  const cols = spec.columns.join(', ');
  await tx.query(
    `INSERT INTO ${spec.table} (${cols})
     SELECT DISTINCT ON (${spec.key.join(', ')}) ${cols} FROM ${stage}
     ORDER BY ${spec.key.join(', ')}, line_no DESC
     ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updatesOf(spec)}`,
  );
}

function updatesOf(spec: BulkUpsertSpec): string {
  return spec.columns
    .filter((c) => !spec.key.includes(c))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
}

/**
 * The CSV lines (unquoted fields: numbers, times, codes; empty is NULL, as COPY reads them) as
 * JSON records typed by the table's row type; the last line of a key wins, as in COPY's path.
 */
async function insertSmall(tx: SqlSession, spec: BulkUpsertSpec, text: string): Promise<void> {
  const keyAt = spec.key.map((k) => spec.columns.indexOf(k));
  const records = new Map<string, Record<string, string | null>>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const fields = line.split(',');
    if (fields.length !== spec.columns.length) throw new Error(`bulkUpsert ${spec.table}: ${fields.length} fields for ${spec.columns.length} columns`);
    records.set(keyAt.map((i) => fields[i]).join(','), Object.fromEntries(spec.columns.map((c, i) => [c, fields[i] === '' ? null : fields[i]])));
  }
  const cols = spec.columns.join(', ');
  await tx.query(
    `INSERT INTO ${spec.table} (${cols})
     SELECT ${cols} FROM jsonb_populate_recordset(NULL::${spec.table}, $1::jsonb)
     ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updatesOf(spec)}`,
    [JSON.stringify([...records.values()])],
    // One text per table: prepared once per connection (the live path's every write).
    { prepare: true },
  );
}

/** Rows already in memory as the batches an upsert reads (it may read them twice: see bulkUpsert). */
export function oneBatch<T>(rows: readonly T[]): () => AsyncIterable<readonly T[]> {
  return async function* () {
    yield rows;
  };
}
