/** What a PostgreSQL error says, read from its SQLSTATE (callers outside src/db never sniff codes). */

/** PostgreSQL refused a row for want of its partition (SQLSTATE 23514, "no partition of relation ... found for row"). */
export function isMissingPartition(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '23514' && typeof e.message === 'string' && e.message.includes('no partition');
}
