/**
 * Bulk writes at COPY speed with upsert semantics, all inside the caller's transaction.
 *
 * Fast path: COPY straight into the target table under a savepoint. That is the whole cost
 * of a first import. When the rows collide with stored ones (a re-import, or a duplicate
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

const UNIQUE_VIOLATION = '23505';

export async function bulkUpsert(
  tx: SqlSession,
  spec: BulkUpsertSpec,
  lines: () => AsyncIterable<string>,
): Promise<void> {
  await tx.query('SAVEPOINT bulk_copy');
  try {
    await tx.copyFrom(spec.table, spec.columns, lines());
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
  const updates = spec.columns
    .filter((c) => !spec.key.includes(c))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  await tx.query(
    `INSERT INTO ${spec.table} (${cols})
     SELECT DISTINCT ON (${spec.key.join(', ')}) ${cols} FROM ${stage}
     ORDER BY ${spec.key.join(', ')}, line_no DESC
     ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updates}`,
  );
}

/** Rows already in memory as the batches an upsert reads (it may read them twice: see bulkUpsert). */
export function oneBatch<T>(rows: readonly T[]): () => AsyncIterable<readonly T[]> {
  return async function* () {
    yield rows;
  };
}
