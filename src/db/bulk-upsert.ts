/**
 * Bulk writes at COPY speed with upsert semantics, inside the caller's transaction. Small inputs
 * (the live path's rows): one INSERT ... ON CONFLICT. Large ones: COPY straight into the target
 * table under a savepoint, the whole cost of a first import; when the rows collide with stored
 * ones (a re-import, a duplicate time in the file), the savepoint is rolled back and they go
 * through a staging table and `INSERT ... ON CONFLICT DO UPDATE` (the file's last row wins).
 */
import { rowsAsText, type ColumnType } from '../encoding/binary-rows';
import { byLeaf, readAhead, whole, type Chunk } from './copy-pieces';
import type { SqlSession } from './database';

export interface BulkUpsertSpec {
  table: string;
  /** Columns of every copied line, in order. */
  columns: readonly string[];
  /** Primary-key columns (a subset of `columns`). */
  key: readonly string[];
  /**
   * The columns' types when the input is binary rows (Buffers of whole BinaryRows rows), which
   * the server reads without parsing text; absent, the input is CSV text.
   */
  types?: readonly ColumnType[];
  /**
   * The leaf partition of `table` a row belongs to, from its `time` (Unix ms). A large input is
   * then copied leaf by leaf, a COPY per run of rows of one leaf, sparing PostgreSQL the
   * routing of each row; rows out of their leaf's order or a leaf missing make the whole input
   * go through `table` instead.
   */
  leafOf?: (timeMs: number) => string;
}

export interface BulkUpsertOptions {
  /**
   * Deletes the stored rows the input replaces, run before a large input's COPY so that the
   * COPY meets none of them. Without it, an input known to rewrite stored rows (a feature
   * tail recomputing its first bucket) is sent twice: the COPY that collides, then the
   * staging path.
   */
  clear?: () => Promise<unknown>;
  /**
   * Send a large input as COPY statements of at most about `chars` of input each (characters
   * or bytes), in the same savepoint, reading up to `readAhead` of it ahead of the server, so that reading
   * and validating it overlaps the server's work instead of waiting on it. For inputs that are
   * costly to produce (an imported file); without it, the input streams as it comes.
   */
  parts?: { chars: number; readAhead: number };
}

/**
 * Text per chunk of a COPY written from memory (rollups, features): the COPY stream holds up to
 * 16 chunks, so small ones keep the text of a write in flight to about a MB. Below V8's
 * large-object size, a chunk's string is young garbage a scavenge frees, where larger ones piled
 * up until a full collection.
 */
export const COPY_CHUNK_BYTES = 64 << 10;

/**
 * Rows of one series and timeframe already in binary COPY form (encoded away from the write: the
 * demo seed's worker thread), with their time span and number.
 */
export interface CopyChunks<T extends string> {
  timeframe: T;
  span: { fromMs: number; toMs: number };
  chunks: readonly Buffer[];
  count: number;
}

const UNIQUE_VIOLATION = '23505';

/** A unique violation; Citus reports a worker's, met by a COPY, as XX000 with PostgreSQL's message. */
function isUniqueViolation(err: unknown): boolean {
  const { code, message } = err as { code?: string; message?: string };
  return code === UNIQUE_VIOLATION || (code === 'XX000' && /^duplicate key value violates unique constraint/.test(message ?? ''));
}

/**
 * Inputs up to this size (the live path's few candles or feature rows) are upserted with one
 * INSERT ... ON CONFLICT: one round trip instead of the savepoint, the COPY and its release.
 */
const SMALL_INPUT_CHARS = 64 * 1024;

/** A COPY straight into a leaf was refused: the leaf is missing, or a line is not of it. */
const UNDEFINED_TABLE = '42P01';
const CHECK_VIOLATION = '23514';

export async function bulkUpsert(
  tx: SqlSession,
  spec: BulkUpsertSpec,
  lines: () => AsyncIterable<Chunk>,
  opts: BulkUpsertOptions = {},
): Promise<void> {
  const format = spec.types ? 'binary' : 'csv';
  // Read ahead far enough to tell a small input from a large one; a large one goes on from
  // where this stopped, so `lines` is called at most three times (leaves, `table`, staging).
  const it = lines()[Symbol.asyncIterator]();
  const head: Chunk[] = [];
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
  if (ended && spec.types) return insertSmall(tx, spec, rowsAsText(Buffer.concat(head as Buffer[]), spec.types));
  if (ended && !head.some((chunk) => chunk.includes('"'))) return insertSmall(tx, spec, csvRecords(spec, (head as string[]).join('')));
  const parts = opts.parts ?? { chars: Infinity, readAhead: 0 };
  const ahead = readAhead(spec.leafOf ? byLeaf(spec, it, head) : whole(spec.table, it, head), parts.readAhead);

  try {
    await opts.clear?.();
    await tx.query('SAVEPOINT bulk_copy');
    try {
      while (!(await ahead.done())) await tx.copyFrom(ahead.table(), spec.columns, ahead.part(parts.chars), format);
      await tx.query('RELEASE SAVEPOINT bulk_copy');
      return;
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT bulk_copy');
      const code = (err as { code?: string }).code;
      if (spec.leafOf && (code === UNDEFINED_TABLE || code === CHECK_VIOLATION)) {
        await ahead.close();
        return bulkUpsert(tx, { ...spec, leafOf: undefined }, lines, { ...opts, clear: undefined });
      }
      if (!isUniqueViolation(err)) throw err;
    }
  } finally {
    // The input is read to its end, or given up (a failed COPY, a unique violation): either
    // way, its reader stops before the staging path reads it again.
    await ahead.close();
  }
  const stage = `stage_${spec.table}`;
  await tx.exec(
    `CREATE TEMP TABLE IF NOT EXISTS ${stage} (LIKE ${spec.table} INCLUDING DEFAULTS) ON COMMIT DROP;
     ALTER TABLE ${stage} ADD COLUMN IF NOT EXISTS line_no BIGSERIAL;
     TRUNCATE ${stage}`,
  );
  await tx.copyFrom(stage, spec.columns, lines(), format);
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

/** The CSV lines (unquoted fields: numbers, times, codes; empty is NULL, as COPY reads them) as rows of fields. */
function csvRecords(spec: BulkUpsertSpec, text: string): (string | null)[][] {
  const rows: (string | null)[][] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const fields = line.split(',');
    if (fields.length !== spec.columns.length) throw new Error(`bulkUpsert ${spec.table}: ${fields.length} fields for ${spec.columns.length} columns`);
    rows.push(fields.map((f) => (f === '' ? null : f)));
  }
  return rows;
}

/** Rows of field texts as JSON records typed by the table's row type; the last row of a key wins, as in COPY's path. */
async function insertSmall(tx: SqlSession, spec: BulkUpsertSpec, rows: (string | null)[][]): Promise<void> {
  const keyAt = spec.key.map((k) => spec.columns.indexOf(k));
  const records = new Map<string, Record<string, string | null>>();
  for (const fields of rows) records.set(keyAt.map((i) => fields[i]).join(','), Object.fromEntries(spec.columns.map((c, i) => [c, fields[i]])));
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

/** First and last time of the rows of `batches` (Infinity and -Infinity when there are none): a pass over them. */
export async function timeSpanOf(batches: () => AsyncIterable<ReadonlyArray<{ time: number }>>): Promise<{ fromMs: number; toMs: number }> {
  let fromMs = Infinity;
  let toMs = -Infinity;
  for await (const batch of batches()) {
    for (const r of batch) {
      if (r.time < fromMs) fromMs = r.time;
      if (r.time > toMs) toMs = r.time;
    }
  }
  return { fromMs, toMs };
}

/** Rows already in memory as the batches an upsert reads (it may read them twice: see bulkUpsert). */
export function oneBatch<T>(rows: readonly T[]): () => AsyncIterable<readonly T[]> {
  return async function* () {
    yield rows;
  };
}
