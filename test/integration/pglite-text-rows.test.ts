/** PGlite's `textRows` reads over its wire protocol (src/db/pglite-text-reader.ts), in memory. */
import type { Database } from '../../src/db/database';
import { createPgliteDatabase } from '../../src/db/pglite.database';

let db: Database;
beforeAll(async () => {
  db = await createPgliteDatabase(undefined);
  await db.exec(`CREATE TABLE t (id int PRIMARY KEY, v numeric, at timestamptz, note text)`);
  await db.exec(`INSERT INTO t VALUES (1, 1.50, '2026-01-02T03:04:05Z', 'é, "quoted"'), (2, NULL, NULL, NULL)`);
});
afterAll(() => db.close());

const SQL = `SELECT id, v, date_part('epoch', at), note FROM t WHERE id = ANY($1::int[]) AND (at IS NULL OR at >= $2) ORDER BY id`;

describe('PGlite textRows reads', () => {
  it('when rows are read, then each value is PostgreSQL\'s text and NULL stays null, for array and Date parameters', async () => {
    const rows = await db.query(SQL, [[1, 2], new Date('2026-01-01T00:00:00Z')], { textRows: true, prepare: true });
    expect(rows).toEqual([
      ['1', '1.50', '1767323045', 'é, "quoted"'],
      ['2', null, null, null],
    ]);
    // Prepared once: the second call (and one inside a transaction) reads the same.
    expect(await db.query(SQL, [[2], null], { textRows: true, prepare: true })).toEqual([['2', null, null, null]]);
    expect(await db.transaction((tx) => tx.query(SQL, [[1], new Date(0)], { textRows: true, prepare: true }))).toHaveLength(1);
  });

  it('when a statement fails, then its SQLSTATE and message come with the error, and the next read works', async () => {
    await expect(db.query('SELECT 1 / $1::int', [0], { textRows: true })).rejects.toMatchObject({ code: '22012', message: 'division by zero' });
    await expect(db.query('SELECT x FROM missing', [], { textRows: true, prepare: true })).rejects.toMatchObject({ code: '42P01' });
    expect(await db.query('SELECT 2 AS n', [], { textRows: true, prepare: true })).toEqual([['2']]);
  });

  it('when a read fails inside a transaction, then the transaction rolls back whole', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO t VALUES (3, 3, NULL, NULL)`);
        await tx.query('SELECT 1 / $1::int', [0], { textRows: true });
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect(await db.query('SELECT count(*) FROM t', [], { textRows: true })).toEqual([['2']]);
  });
});
