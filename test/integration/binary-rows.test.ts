/**
 * BinaryRows against the database itself, on PGlite and on PostgreSQL: every value written as
 * binary COPY rows is stored as the CSV text of the same value is (the same numeric digits and
 * scale, so the same rendering; the same instant), and rowsAsText reads the rows back as
 * PostgreSQL renders them.
 */
import { formatFloat } from '../../src/domain/decimal';
import { BinaryRows, rowsAsText, type ColumnType } from '../../src/encoding/binary-rows';
import { databaseCases, useServices } from '../helpers/databases';

const COLUMNS = ['id', 'code', 'at', 'n', 'big', 'flag'];
const TYPES: ColumnType[] = ['int4', 'text', 'timestamptz', 'numeric', 'int8', 'bool'];

const DECIMALS = ['0', '7', '0.5', '-0.5', '0.0001', '0.00001', '1.10', '12345678.12345678', '-1234.5', '100000000', '9999.9999', '10000', '0.000000001', '123456789012345678901234.5'];
/** Mantissa and scale. */
const SCALED: Array<[number, number]> = [[0, 6], [-0, 6], [4000, 2], [5, 3], [-12, 1], [7, 0], [2 ** 53 - 1, 8], [-(2 ** 53 - 1), 0], [1, 22]];
/** Computed values written with 6 decimals (ties, tiny, large, negative, not finite). */
const COMPUTED = [1 / 3, -2 / 3, 0.0000005, 0.0000015, -0.0000004, 1e15 / 7, 123.4565, NaN, Infinity, 2.5e-7, -1e-9, 42];
const TIMES = [0, 946_684_800_000, 946_684_799_999, 946_684_800_001, Date.UTC(2024, 1, 29, 23, 59), 253_402_300_799_999, 1_000_000_000_123];

interface Row {
  code: string;
  at: number;
  /** The numeric: a text, a mantissa and scale, or a computed value. */
  n: { text: string } | { m: number; s: number } | { v: number };
  big: string | null;
  flag: boolean;
}

function rows(): Row[] {
  const out: Row[] = [];
  const ns: Row['n'][] = [...DECIMALS.map((text) => ({ text })), ...SCALED.map(([m, s]) => ({ m, s })), ...COMPUTED.map((v) => ({ v }))];
  ns.forEach((n, i) => out.push({ code: i % 2 ? '1m' : 'funding', at: TIMES[i % TIMES.length], n, big: i % 3 === 0 ? null : String(BigInt(i) * 3_000_000_000_000_001n), flag: i % 2 === 0 }));
  return out;
}

/** The same rows as CSV text, each value as its plain text (formatFloat's for a computed one: BinaryRows.fixed's contract). */
function csv(all: Row[]): string {
  return all
    .map((r, i) => {
      const n = 'text' in r.n ? r.n.text : 'v' in r.n ? (formatFloat(r.n.v, 6) ?? '') : scaledText(r.n.m, r.n.s);
      return `${i},${r.code},${new Date(r.at).toISOString()},${n},${r.big ?? ''},${r.flag ? 't' : 'f'}\n`;
    })
    .join('');
}

function scaledText(m: number, s: number): string {
  const digits = String(Math.abs(m)).padStart(s + 1, '0');
  const text = s > 0 ? `${digits.slice(0, -s)}.${digits.slice(-s)}` : digits;
  return m < 0 ? `-${text}` : text;
}

function binary(all: Row[]): Buffer {
  const out = new BinaryRows(64);
  all.forEach((r, i) => {
    out.row(COLUMNS.length);
    out.int4(i);
    out.ascii(r.code);
    out.timestamptz(r.at);
    if ('text' in r.n) out.decimalText(r.n.text);
    else if ('v' in r.n) out.fixed(r.n.v, 6);
    else out.scaled(r.n.m, r.n.s);
    if (r.big === null) out.null();
    else out.int8(r.big);
    out.bool(r.flag);
  });
  return out.take();
}

describe.each(databaseCases())('binary COPY rows on $name', (kase) => {
  const services = useServices(kase);

  it('when the same values are copied as CSV text and as binary rows, then they are stored and rendered identically', async () => {
    const db = services().store.db;
    const all = rows();
    await db.exec(`CREATE TABLE bin_csv (id int4, code text, at timestamptz(3), n numeric, big int8, flag boolean);
                   CREATE TABLE bin_binary (LIKE bin_csv)`);
    await db.transaction(async (tx) => {
      await tx.copyFrom('bin_csv', COLUMNS, (async function* () {
        yield csv(all);
      })());
      await tx.copyFrom('bin_binary', COLUMNS, (async function* () {
        yield binary(all);
      })(), 'binary');
    });
    const read = (table: string) =>
      db.query<{ row: string }>(
        `SELECT concat_ws('|', id, code, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS'), n::text, coalesce(big::text, 'NULL'), flag,
                extract(epoch FROM at) * 1000, scale(n)) AS row FROM ${table} ORDER BY id`,
      );
    const fromCsv = (await read('bin_csv')).map((r) => r.row);
    expect(fromCsv).toHaveLength(all.length);
    expect((await read('bin_binary')).map((r) => r.row)).toEqual(fromCsv);

    // Read back by rowsAsText: the text PostgreSQL renders.
    const rendered = await db.query<{ id: string; code: string; at: string; n: string | null; big: string | null; flag: string }>(
      `SELECT id::text, code, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, n::text, big::text,
              CASE WHEN flag THEN 't' ELSE 'f' END AS flag FROM bin_csv ORDER BY bin_csv.id`,
    );
    expect(rowsAsText(binary(all), TYPES)).toEqual(rendered.map((r) => [r.id, r.code, r.at, r.n, r.big, r.flag]));
  });
});
