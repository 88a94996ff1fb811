/**
 * format=parquet and format=arrow on the four data routes, read back by readers that share no code
 * with the writers: Parquet by DuckDB (values, logical column types, the file's physical schema),
 * the Arrow stream by flechette (unscaled decimals as integers, raw timestamps). Every value is
 * compared with the JSON answer to the same request, decimals as exact strings, never floats. On
 * the embedded database and (with DATABASE_URL) on PostgreSQL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { TimeUnit, Type, tableFromIPC } from '@uwdata/flechette';
import { arrowStream, parquetOf } from '../../src/rest/dataframe.writer';
import type { PageTable } from '../../src/rest/page-table';
import { HOUR, MINUTE, T0, iso, loadFixtures } from '../helpers/fixtures';
import type { Json } from '../helpers/json';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';

const NOW = T0 + 900 * HOUR + 30_000;

/** A table as a reader saw it: each column's type in the reader's words, rows of exact strings. */
interface ReadBack {
  types: Record<string, string>;
  rows: Array<Array<string | null>>;
}

/** API time text of Unix milliseconds (whole seconds, as the API renders them). */
const apiTime = (ms: bigint) => {
  if (ms % 1000n !== 0n) return `not whole seconds: ${ms}`;
  return new Date(Number(ms)).toISOString().replace('.000Z', '+00:00');
};

/** Decimal text of an unscaled integer at `scale` places (64250500000n, 6 -> "64250.500000"). */
function decimalText(unscaled: bigint, scale: number): string {
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${unscaled < 0n ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** The Arrow IPC stream through flechette: types from its schema, values from its raw buffers. */
function readArrow(bytes: Uint8Array): ReadBack {
  const table = tableFromIPC(bytes, { useDecimalInt: true, useBigIntTimestamp: true });
  const types: Record<string, string> = {};
  const columns = table.schema.fields.map((f) => {
    const t = f.type;
    const values = [...table.getChild(f.name).toArray()] as Array<bigint | null>;
    if (t.typeId === Type.Timestamp) {
      types[f.name] = `timestamp[${t.unit === TimeUnit.MILLISECOND ? 'ms' : t.unit}, ${t.timezone}]${f.nullable ? '' : ' not null'}`;
      return values.map((v) => (v === null ? null : apiTime(v)));
    }
    if (t.typeId === Type.Decimal) {
      types[f.name] = `decimal${t.bitWidth}(${t.precision}, ${t.scale})`;
      return values.map((v) => (v === null ? null : decimalText(v, t.scale)));
    }
    types[f.name] = `type ${t.typeId}`;
    return values.map(String);
  });
  return { types, rows: Array.from({ length: table.numRows }, (_, i) => columns.map((c) => c[i])) };
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The Parquet file through DuckDB: its logical types, its physical schema, exact values. */
async function readParquet(duck: DuckDBConnection, file: string, bytes: Uint8Array): Promise<ReadBack & { physical: Json[] }> {
  writeFileSync(file, bytes);
  const source = `read_parquet('${file}')`;
  const described = (await duck.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJS();
  const types = Object.fromEntries(described.map((c) => [String(c.column_name), String(c.column_type)]));
  const physical = (
    await duck.runAndReadAll(`SELECT name, type, type_length, converted_type, scale, precision, logical_type, repetition_type FROM parquet_schema('${file}') WHERE type IS NOT NULL`)
  ).getRowObjectsJson();
  // Decimals rendered by DuckDB from the stored integer (every place written); times as epoch ms.
  const select = described.map((c) => {
    const name = quoted(String(c.column_name));
    return String(c.column_type).startsWith('TIMESTAMP') ? `epoch_ms(${name})` : `CAST(${name} AS VARCHAR)`;
  });
  const rows = (await duck.runAndReadAll(`SELECT ${select.join(', ')} FROM ${source}`)).getRowsJS() as Array<Array<bigint | string | null>>;
  return {
    types,
    physical,
    rows: rows.map((r) => r.map((v, i) => (v === null ? null : i === 0 ? apiTime(BigInt(v)) : String(v)))),
  };
}

/** The rows of a JSON page in the given column order, an absent property as null. */
const jsonRows = (body: Json, columns: readonly string[]) => (body.data as Json[]).map((r) => columns.map((c) => r[c] ?? null));

interface Case {
  name: string;
  path: string;
  columns: string[];
  /** Places of each column after time. */
  scales: number[];
  /** What the case must contain to mean something. */
  expectNulls: boolean;
}

const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

const CASES: Case[] = [
  {
    name: 'ohlcv, a page with a next one',
    path: `/v1/ohlcv?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1h', start: iso(T0), end: iso(T0 + 48 * HOUR), limit: 20 })}`,
    columns: ['time', 'open', 'high', 'low', 'close', 'volume'],
    scales: [6, 6, 6, 6, 6],
    expectNulls: false,
  },
  {
    name: 'funding, normalized over the end of the warm-up',
    path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0 + 712 * HOUR), end: iso(T0 + 730 * HOUR), normalized: 'true' })}`,
    columns: ['time', 'rate', 'rate_normalized', 'premium'],
    scales: [8, 6, 8],
    expectNulls: true,
  },
  {
    name: 'funding, plain, from the first hour',
    path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0), end: iso(T0 + 30 * HOUR) })}`,
    columns: ['time', 'rate'],
    scales: [8],
    expectNulls: false,
  },
  {
    name: 'features over their warm-up',
    path: `/v1/features?${q({ symbol: 'ETH-USDT', exchange: 'spot', timeframe: '1m', features: 'rsi_14,macd,bb_pct,vwap_20', start: iso(T0), end: iso(T0 + 40 * MINUTE) })}`,
    columns: ['time', 'rsi_14', 'macd', 'bb_pct', 'vwap_20'],
    scales: [6, 6, 6, 6],
    expectNulls: true,
  },
  {
    name: 'multi-asset close, SOL missing a minute',
    path: `/v1/multi-asset?${q({ symbols: 'SOL-USDT,ETH-USDT', exchange: 'spot', timeframe: '1m', field: 'close', start: iso(T0), end: iso(T0 + 6 * MINUTE) })}`,
    columns: ['time', 'SOL-USDT', 'ETH-USDT'],
    scales: [6, 6],
    expectNulls: true,
  },
  {
    name: 'multi-asset funding_rate, ETH without funding',
    path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT,ETH-USDT', exchange: 'perp', timeframe: '1h', field: 'funding_rate', start: iso(T0), end: iso(T0 + 12 * HOUR) })}`,
    columns: ['time', 'BTC-USDT', 'ETH-USDT'],
    scales: [8, 8],
    expectNulls: true,
  },
  {
    name: 'ohlcv, an empty page',
    path: `/v1/ohlcv?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', start: iso(T0 + 850 * HOUR), end: iso(T0 + 860 * HOUR) })}`,
    columns: ['time', 'open', 'high', 'low', 'close', 'volume'],
    scales: [6, 6, 6, 6, 6],
    expectNulls: false,
  },
];

describe.each(databaseCases())('format=parquet and format=arrow on $name', ({ create }) => {
  let srv: TestServer;
  let db: FreshDatabase | null;
  let key: string;
  let dir: string;
  let duckdb: DuckDBInstance;
  let duck: DuckDBConnection;
  let files = 0;
  const get = (p: string, headers: Record<string, string> = {}) => srv.rest(p, { key, headers });
  const bytesOf = async (r: Response) => new Uint8Array(await r.arrayBuffer());
  const parquetFile = () => path.join(dir, `page-${files++}.parquet`);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mds-dataframe-'));
    duckdb = await DuckDBInstance.create(':memory:');
    duck = await duckdb.connect();
    db = await create();
    srv = await startTestServer({ clock: () => NOW, database: db?.url });
    await loadFixtures(srv.services, NOW);
    key = await srv.key('pro');
  }, 120_000);
  afterAll(async () => {
    duck?.closeSync();
    duckdb?.closeSync();
    rmSync(dir, { recursive: true, force: true });
    await srv?.stop();
    await db?.drop();
  });

  describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_title, c) => {
    let json: Json;
    let expected: Array<Array<string | null>>;

    beforeAll(async () => {
      const r = await srv.getJson(c.path, key);
      expect(r.status).toBe(200);
      json = r.body;
      expected = jsonRows(json, c.columns);
      // The case holds what it is there for: rows (but the empty page), nulls where promised.
      expect(expected.length > 0).toBe(!c.name.includes('empty'));
      expect(expected.some((row) => row.includes(null))).toBe(c.expectNulls);
    });

    it('when asked as parquet, then DuckDB reads the JSON page exactly: times, decimals, nulls, types', async () => {
      const r = await get(`${c.path}&format=parquet`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      const bytes = await bytesOf(r);
      expect(Number(r.headers.get('content-length'))).toBe(bytes.length);
      expect(r.headers.get('x-next-start')).toBe(json.next_start);

      const back = await readParquet(duck, parquetFile(), bytes);
      expect(back.types).toEqual(Object.fromEntries(c.columns.map((name, i) => [name, i === 0 ? 'TIMESTAMP WITH TIME ZONE' : `DECIMAL(38,${c.scales[i - 1]})`])));
      expect(back.physical).toEqual(
        c.columns.map((name, i) =>
          i === 0
            ? {
                name,
                type: 'INT64',
                type_length: null,
                converted_type: 'TIMESTAMP_MILLIS',
                scale: null,
                precision: null,
                logical_type: expect.stringMatching(/^TimestampType\(isAdjustedToUTC=1, unit=TimeUnit\(MILLIS=/),
                repetition_type: 'REQUIRED',
              }
            : {
                name,
                type: 'FIXED_LEN_BYTE_ARRAY',
                type_length: '16',
                converted_type: 'DECIMAL',
                scale: String(c.scales[i - 1]),
                precision: '38',
                logical_type: `DecimalType(scale=${c.scales[i - 1]}, precision=38)`,
                repetition_type: 'OPTIONAL',
              },
        ),
      );
      expect(back.rows).toEqual(expected);
    });

    it('when asked as arrow, then flechette reads the JSON page exactly: times, decimals, nulls, types', async () => {
      const r = await get(`${c.path}&format=arrow`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/vnd.apache.arrow.stream');
      const bytes = await bytesOf(r);
      expect(Number(r.headers.get('content-length'))).toBe(bytes.length);
      expect(r.headers.get('x-next-start')).toBe(json.next_start);

      const back = readArrow(bytes);
      expect(back.types).toEqual(Object.fromEntries(c.columns.map((name, i) => [name, i === 0 ? 'timestamp[ms, UTC] not null' : `decimal128(38, ${c.scales[i - 1]})`])));
      expect(back.rows).toEqual(expected);
    });
  });

  it('when a page has a next one, then X-Next-Start is where the JSON page says, for csv, parquet and arrow alike', async () => {
    const page = CASES[0].path;
    const next = (await srv.getJson(page, key)).body.next_start;
    expect(next).toBe(iso(T0 + 20 * HOUR).replace('.000Z', '+00:00'));
    for (const format of ['csv', 'parquet', 'arrow']) expect([format, (await get(`${page}&format=${format}`)).headers.get('x-next-start')]).toEqual([format, next]);
  });

  it('when If-None-Match names the tag, then 304 with no body and X-Next-Start kept; each format has its own tag', async () => {
    const page = CASES[0].path;
    const tags = new Map<string, string>();
    for (const format of ['json', 'csv', 'parquet', 'arrow']) {
      const first = await get(`${page}&format=${format}`);
      const tag = first.headers.get('etag')!;
      expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      tags.set(format, tag);
      if (format === 'json' || format === 'csv') continue;
      expect(first.headers.get('cache-control')).toBe('private, max-age=300');
      const again = await get(`${page}&format=${format}`, { 'If-None-Match': tag });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(tag);
      expect(again.headers.get('x-next-start')).toBe(first.headers.get('x-next-start'));
      expect((await get(`${page}&format=${format}`, { 'If-None-Match': '"other"' })).status).toBe(200);
    }
    expect(new Set(tags.values()).size).toBe(4);
  });

  it('when the format is none of the four, then the JSON 400 envelope naming all four', async () => {
    const r = await get(`${CASES[0].path}&format=feather`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toEqual({ error: 'INVALID_PARAMETER', message: 'format must be json, csv, parquet or arrow', request_id: expect.any(String) });
  });

  it('when a parquet or arrow request fails, then the error is the JSON envelope', async () => {
    for (const format of ['parquet', 'arrow']) {
      const bad = await get(`/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=2m&start=${T0}&format=${format}`);
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await bad.json()) as Json).error).toBe('INVALID_TIMEFRAME');
      const noKey = await fetch(`${srv.url}${CASES[0].path}&format=${format}`);
      expect(noKey.status).toBe(401);
      expect(((await noKey.json()) as Json).error).toBe('UNAUTHORIZED');
      const spotFunding = await get(`/v1/funding?symbol=BTC-USDT&exchange=spot&start=${T0}&format=${format}`);
      expect(spotFunding.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await spotFunding.json()) as Json).error).toBe('INVALID_EXCHANGE');
    }
  });
});

describe('the dataframe writer at the edges of Decimal128(38, s)', () => {
  const values = ['99999999999999999999999999999999.999999', '-99999999999999999999999999999999.999999', '-0.000001', '0.000000', '18446744073709551616.000000', null];
  const page: PageTable<[string, string | null]> = {
    columns: ['time', 'x'],
    scaleOf: () => 6,
    rows: values.map((v, i) => [new Date(T0 + i * 1000).toISOString().replace('.000Z', '+00:00'), v]),
    cells: (r) => r,
    nextStart: null,
  };
  const expected = page.rows.map((r) => [...r]);

  it('when 38-digit, negative and 2^64-crossing values are written, then both readers give them back exactly', async () => {
    expect(readArrow(arrowStream(page)).rows).toEqual(expected);
    const dir = mkdtempSync(path.join(tmpdir(), 'mds-dataframe-'));
    const instance = await DuckDBInstance.create(':memory:');
    const duck = await instance.connect();
    try {
      expect((await readParquet(duck, path.join(dir, 'edges.parquet'), await parquetOf(arrowStream(page)))).rows).toEqual(expected);
    } finally {
      duck.closeSync();
      instance.closeSync();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when values sit on either side of the writer\'s double-precision fast path (2^53), then every one reads back exactly', () => {
    const generated: string[] = ['9007199254.740991', '9007199254.740992', '-9007199254.740993', '999999999.999999', '1000000000.000000', '-0.000000', '0', '-5', '12.5'];
    let seed = 3;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let i = 0; i < 3_000; i++) {
      let int = String(next() % 9 + 1);
      for (let k = next() % 19; k > 0; k--) int += String(next() % 10);
      const places = next() % 7;
      let frac = '';
      for (let k = 0; k < places; k++) frac += String(next() % 10);
      generated.push(`${next() % 3 === 0 ? '-' : ''}${int}${places ? '.' + frac : ''}`);
    }
    const times = generated.map((_, i) => new Date(Date.UTC(2023, 11, 31) + i * 61_001_000).toISOString().replace('.000Z', '+00:00'));
    const wide: PageTable<[string, string]> = { ...page, rows: generated.map((v, i) => [times[i], v]) } as never;
    const exact = (v: string) => {
      const [, sign, int, frac = ''] = /^(-?)(\d+)(?:\.(\d+))?$/.exec(v)!;
      const text = `${BigInt(int)}.${frac.padEnd(6, '0')}`;
      return sign && /[1-9]/.test(text) ? `-${text}` : text;
    };
    expect(readArrow(arrowStream(wide)).rows).toEqual(generated.map((v, i) => [times[i], exact(v)]));
  });

  it('when a value has more places than its column or more than 38 digits, then the writer refuses it', () => {
    expect(() => arrowStream({ ...page, rows: [['2024-01-01T00:00:00+00:00', '1.0000001']] })).toThrow(/at most 6 places/);
    expect(() => arrowStream({ ...page, rows: [['2024-01-01T00:00:00+00:00', '1' + '0'.repeat(32) + '.000000']] })).toThrow(/38 digits/);
    expect(() => arrowStream({ ...page, rows: [['2024-01-01T00:00:00Z', '1.000000']] })).toThrow(/not an API time/);
  });
});
