/**
 * Bulk writes at COPY speed with upsert semantics, inside the caller's transaction. Small inputs
 * (the live path's rows): one INSERT ... ON CONFLICT. Large ones: COPY straight into the target
 * table under a savepoint, the whole cost of a first import; when the rows collide with stored
 * ones (a re-import, a duplicate time in the file), the savepoint is rolled back and they go
 * through a staging table and `INSERT ... ON CONFLICT DO UPDATE` (the file's last row wins).
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
  /**
   * Send a large input as several COPY statements of about `chars` of text each, in the same
   * savepoint, reading the input up to `readAhead` of text ahead of the server. PostgreSQL
   * checks each row's foreign key when its statement ends (about half of its work on
   * candles): between statements the next part is already read and validated, so that check
   * overlaps the client's work instead of following it. For inputs that are costly to produce
   * (an imported file); without it, one COPY streams the input as it comes.
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
  const parts = opts.parts ?? { chars: Infinity, readAhead: 0 };
  const ahead = readAhead(it, parts.readAhead, head);

  try {
    await opts.clear?.();
    await tx.query('SAVEPOINT bulk_copy');
    try {
      while (!(await ahead.done())) await tx.copyFrom(spec.table, spec.columns, ahead.part(parts.chars));
      await tx.query('RELEASE SAVEPOINT bulk_copy');
      return;
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT bulk_copy');
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
  await tx.copyFrom(stage, spec.columns, lines());
  const cols = spec.columns.join(', ');
  await tx.query(
    `INSERT INTO ${spec.table} (${cols})
     SELECT DISTINCT ON (${spec.key.join(', ')}) ${cols} FROM ${stage}
     ORDER BY ${spec.key.join(', ')}, line_no DESC
     ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updatesOf(spec)}`,
  );
}

interface ReadAhead {
  /** Whether the input has ended (waits for the next chunk or the end). */
  done(): Promise<boolean>;
  /** The next chunks, up to about `chars` of text (at least one chunk). */
  part(chars: number): AsyncGenerator<string>;
  /** Stop reading; the source is closed (its file, its generator). */
  close(): Promise<void>;
}

/**
 * Pull `source` ahead of its consumer, up to `maxChars` of text (0: one chunk at a time, as
 * the consumer asks), starting with the chunks already read (`head`). A failure of the source
 * reaches the consumer at its next read.
 */
function readAhead(source: AsyncIterator<string>, maxChars: number, head: string[]): ReadAhead {
  const queue = [...head];
  let queued = head.reduce((n, c) => n + c.length, 0);
  let ended = false;
  let failed = false;
  let failure: unknown;
  let stopping = false;
  let wakeConsumer: (() => void) | null = null;
  let wakeProducer: (() => void) | null = null;
  const wake = () => {
    wakeConsumer?.();
    wakeConsumer = null;
  };
  const producer = (async () => {
    try {
      while (!stopping) {
        if (queue.length > 0 && queued >= maxChars) {
          await new Promise<void>((r) => (wakeProducer = r));
          continue;
        }
        const next = await source.next();
        if (next.done) break;
        queue.push(next.value);
        queued += next.value.length;
        wake();
      }
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      ended = true;
      wake();
    }
  })();
  async function ready(): Promise<void> {
    while (queue.length === 0 && !ended) await new Promise<void>((r) => (wakeConsumer = r));
    if (failed) throw failure;
  }
  function shift(): string {
    const chunk = queue.shift()!;
    queued -= chunk.length;
    wakeProducer?.();
    wakeProducer = null;
    return chunk;
  }
  return {
    async done() {
      await ready();
      return queue.length === 0;
    },
    async *part(chars) {
      let sent = 0;
      while (sent < chars) {
        await ready();
        if (queue.length === 0) return;
        const chunk = shift();
        sent += chunk.length;
        yield chunk;
      }
    },
    async close() {
      stopping = true;
      wakeProducer?.();
      await producer;
      await source.return?.();
    },
  };
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
