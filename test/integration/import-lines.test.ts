/**
 * The import reads its file in blocks of bytes and validates the common line shape from its
 * bytes, every other line through the general parser. On PGlite and on PostgreSQL: a file
 * spanning several blocks that mixes both kinds of line, with CRLF line ends and no final
 * newline, stores exactly what the same rows in the common shape store, through the COPY
 * path and through the staging upsert of a re-import; a bad line in a later block is named
 * by its line number.
 */
import { rawFile } from '../helpers/csv';
import { databaseCases, useServices } from '../helpers/databases';
import type { Services } from '../../src/composition';

const T0 = Date.UTC(2024, 0, 1);
const MINUTE = 60_000;
const ROWS = 40_000; // about 2.8 MB: three blocks of the reader
const iso = (ms: number) => new Date(ms).toISOString();

interface Row {
  t: number;
  o: string;
  h: string;
  l: string;
  c: string;
  v: string;
}

function rows(shift = 0): Row[] {
  return Array.from({ length: ROWS }, (_, i) => {
    const o = 100 + shift + (i % 13);
    const c = 100 + shift + ((i * 7) % 13);
    return { t: T0 + i * MINUTE, o: `${o}.10`, h: `${Math.max(o, c) + 1}.5`, l: `${Math.min(o, c) - 1}.25`, c: `${c}.00`, v: `${(i % 5) * 3}.125` };
  });
}

const common = (r: Row) => `${iso(r.t)},${r.o},${r.h},${r.l},${r.c},${r.v}`;

/** The same row in the other forms the general parser accepts. */
function other(r: Row, i: number): string {
  switch (i % 6) {
    case 0:
      return `"${iso(r.t)}",${r.o},${r.h},${r.l},${r.c},${r.v}`;
    case 1:
      return `${r.t},${r.o},${r.h},${r.l},${r.c},${Number(r.v).toExponential()}`;
    case 2:
      return `${iso(r.t).replace('.000Z', '+00:00')}, ${r.o} ,${r.h},${r.l},${r.c},+${r.v}`;
    case 3:
      return `${iso(r.t).slice(0, 16)},0${r.o},${r.h},${r.l},${r.c},${r.v}`;
    default:
      return common(r);
  }
}

async function stored(s: Services, seriesId: number): Promise<string[]> {
  const got = await s.store.db.query<{ r: string }>(
    `SELECT concat_ws(',', timeframe, (extract(epoch FROM time) * 1000)::bigint, open, high, low, close, volume, derived) AS r
     FROM candles WHERE series_id = $1 ORDER BY timeframe, time`,
    [seriesId],
  );
  return got.map((x) => x.r);
}

describe.each(databaseCases())('import of a file in blocks on $name', (kase) => {
  const services = useServices(kase);

  it('when a file mixes line forms, ends lines with CRLF and has no final newline, then it stores what the common form stores, also on re-import', async () => {
    const s = services();
    const plain = rawFile(['time,open,high,low,close,volume', ...rows().map(common)].join('\n') + '\n');
    const mixed = rawFile(['time,open,high,low,close,volume', ...rows().map(other)].join('\r\n'));
    const a = await s.importer.importCandles({ exchange: 'perp', symbol: 'LINE-USDT' }, '1m', plain);
    const b = await s.importer.importCandles({ exchange: 'spot', symbol: 'LINE-USDT' }, '1m', mixed);
    expect({ rows: b.rows, from: b.from, to: b.to }).toEqual({ rows: ROWS, from: T0, to: T0 + (ROWS - 1) * MINUTE });
    const expected = await stored(s, a.seriesId);
    expect(expected).toHaveLength(ROWS);
    expect(expected[0]).toBe(`1m,${T0},100.1,101.5,99.25,100,0.125,f`);
    expect(await stored(s, b.seriesId)).toEqual(expected);

    // The same file again: every row collides, the staging upsert runs, nothing changes.
    await s.importer.importCandles({ exchange: 'spot', symbol: 'LINE-USDT' }, '1m', mixed);
    expect(await stored(s, b.seriesId)).toEqual(expected);

    // Shifted prices in the mixed form over the plain series: the file's values win.
    const shifted = rawFile(['time,open,high,low,close,volume', ...rows(50).map(other)].join('\r\n'));
    const plainShifted = rawFile(['time,open,high,low,close,volume', ...rows(50).map(common)].join('\n'));
    await s.importer.importCandles({ exchange: 'perp', symbol: 'LINE-USDT' }, '1m', shifted);
    await s.importer.importCandles({ exchange: 'spot', symbol: 'LINE-USDT' }, '1m', plainShifted);
    expect(await stored(s, a.seriesId)).toEqual(await stored(s, b.seriesId));
  }, 120_000);

  it.each([
    ['CRLF', '\r\n'],
    ['a lone CR', '\r'],
  ])('when a line in the third block is bad and lines end with %s, then the error names that line', async (_name, eol) => {
    const s = services();
    const lines = ['time,open,high,low,close,volume', '', ...rows().map(other)];
    // Line 35,002 of the file (the header, a blank line, then rows).
    lines[35_001] = `${iso(T0)},100,99,98,97,1`;
    const file = rawFile(lines.join(eol));
    await expect(s.importer.importCandles({ exchange: 'perp', symbol: 'BAD-USDT' }, '1m', file)).rejects.toMatchObject({
      code: 'INVALID_IMPORT',
      message: `${file}:35002: high is below open or close`,
    });
    expect(await s.store.series.idOf({ exchange: 'perp', symbol: 'BAD-USDT' })).toBeUndefined();
  }, 60_000);

  it('when the header has a byte-order mark and blank lines hold only spaces, tabs or a BOM, then they are skipped and the rows imported', async () => {
    const s = services();
    const rs = rows().slice(0, 3);
    const file = rawFile(['\uFEFFtime,open,high,low,close,volume', '   ', common(rs[0]), '\t', '\uFEFF', common(rs[1]), '', common(rs[2])].join('\r\n'));
    const r = await s.importer.importCandles({ exchange: 'perp', symbol: 'BOM-USDT' }, '1m', file);
    expect({ rows: r.rows, from: r.from, to: r.to }).toEqual({ rows: 3, from: T0, to: T0 + 2 * MINUTE });
  });
});
