/**
 * `format=parquet` and `format=arrow` (docs/DECISIONS.md, "Dataframe formats"): a page as one typed
 * table for pandas and polars, columns named and ordered as the CSV's. `time` is a UTC millisecond
 * timestamp; counts are Int64; every other column an exact Decimal128(38, s) built from the decimal
 * string digit by digit (never through a double); null stays null. Arrow: the IPC stream; Parquet:
 * that stream through parquet-wasm, zstd. A page (at most 10,000 rows) is built whole, tagged over
 * its bytes and sent with Content-Length; errors stay JSON because the bytes come after the read.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { Decimal, Field, Int64, makeData, RecordBatch, Schema, Struct, Table, TimestampMillisecond, tableToIPC, type Data } from 'apache-arrow';
import type * as ParquetWasm from 'parquet-wasm';
import { answeredNotModified, entityTag, pageTag, type TagInputs } from './conditional';
import type { PageTable } from './page-table';
import type { DataframeFormat } from './format';

export const DATAFRAME_MEDIA_TYPES: Record<DataframeFormat, string> = {
  parquet: 'application/vnd.apache.parquet',
  arrow: 'application/vnd.apache.arrow.stream',
};

/** Digits a Decimal128 holds whole. */
const PRECISION = 38;

/** A decimal as the API renders it: optional minus, digits, optional point and digits. */
const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;
/** A time as the API renders it (`sqlTime`): whole seconds, UTC. */
const TIME_TEXT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/;

/** The unscaled integer of `text` at `scale` places ("64250.500000", 6 -> 64250500000n), exactly. */
export function unscaledDecimal(text: string, scale: number): bigint {
  const m = DECIMAL_TEXT.exec(text);
  const fraction = m?.[3] ?? '';
  if (!m || fraction.length > scale) throw new Error(`not a decimal of at most ${scale} places: ${text}`);
  const digits = (m[2] + fraction.padEnd(scale, '0')).replace(/^0+(?=\d)/, '');
  if (digits.length > PRECISION) throw new Error(`decimal beyond ${PRECISION} digits: ${text}`);
  return BigInt(m[1] + digits);
}

const TWO_32 = 2 ** 32;

/** Write the 64-bit two's complement of the integer `n` (|n| < 2^53) as two little-endian words at `at`. */
function writeInt64(words: Uint32Array, at: number, n: number): void {
  words[at] = ((n % TWO_32) + TWO_32) % TWO_32;
  words[at + 1] = Math.floor(n / TWO_32) >>> 0;
}

let cachedDay = '';
let cachedDayMs = 0;

/** epochMs for a page's times, the date part parsed once per day. */
function pageTimeMs(text: string): number {
  if (!TIME_TEXT.test(text)) throw new Error(`not an API time: ${text}`);
  const day = text.slice(0, 10);
  if (day !== cachedDay) {
    const ms = Date.parse(`${day}T00:00:00Z`);
    if (Number.isNaN(ms)) throw new Error(`not an API time: ${text}`);
    [cachedDay, cachedDayMs] = [day, ms];
  }
  const h = Number(text.slice(11, 13));
  const m = Number(text.slice(14, 16));
  const sec = Number(text.slice(17, 19));
  if (h > 23 || m > 59 || sec > 59) throw new Error(`not an API time: ${text}`);
  return cachedDayMs + ((h * 60 + m) * 60 + sec) * 1000;
}

function timeColumn(values: ReadonlyArray<string | null | undefined>): Data<TimestampMillisecond> {
  const words = new Uint32Array(2 * values.length);
  for (let i = 0; i < values.length; i++) writeInt64(words, 2 * i, pageTimeMs(values[i] ?? ''));
  return makeData({ type: new TimestampMillisecond('UTC'), length: values.length, nullCount: 0, data: new BigInt64Array(words.buffer) });
}

const POW10 = Array.from({ length: 39 }, (_, k) => 10 ** k);

/**
 * The common case of `unscaledDecimal`, without a BigInt: a decimal whose unscaled integer
 * fits a double exactly (below 2^53) is written as 128-bit two's complement into the four
 * little-endian words at `at`. False when the text needs the exact path (or is no decimal).
 */
function writeSmallDecimal(text: string, scale: number, words: Uint32Array, at: number): boolean {
  const negative = text.charCodeAt(0) === 45;
  let value = 0;
  let digits = 0;
  let places = -1;
  for (let i = negative ? 1 : 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && places < 0 && digits > 0) places = 0;
    else if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
      if (places >= 0) places++;
    } else return false;
  }
  if (digits === 0 || digits > 15 || places === 0 || places > scale) return false;
  const unscaled = value * POW10[scale - Math.max(places, 0)];
  if (unscaled > Number.MAX_SAFE_INTEGER) return false;
  writeInt64(words, at, negative ? -unscaled : unscaled);
  const sign = negative && unscaled !== 0 ? 0xffffffff : 0;
  words[at + 2] = sign;
  words[at + 3] = sign;
  return true;
}

/** Each present value of a column written by `write(i, value)`; the validity bitmap and null count of the others. */
function present(values: ReadonlyArray<string | null | undefined>, write: (i: number, v: string) => void): { nullCount: number; nullBitmap?: Uint8Array } {
  const valid = new Uint8Array((values.length + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      nulls++;
      continue;
    }
    write(i, v);
    valid[i >> 3] |= 1 << (i & 7);
  }
  return { nullCount: nulls, nullBitmap: nulls > 0 ? valid : undefined };
}

function decimalColumn(values: ReadonlyArray<string | null | undefined>, scale: number): Data<Decimal> {
  // Two's complement over 128 bits, little-endian: the low 64 bits (the array keeps the value
  // modulo 2^64), then the high 64 (the arithmetic shift keeps the sign).
  const words = new Uint32Array(4 * values.length);
  const wide = new BigInt64Array(words.buffer);
  const nulls = present(values, (i, v) => {
    if (writeSmallDecimal(v, scale, words, 4 * i)) return;
    const unscaled = unscaledDecimal(v, scale);
    wide[2 * i] = unscaled;
    wide[2 * i + 1] = unscaled >> 64n;
  });
  return makeData({ type: new Decimal(scale, PRECISION, 128), length: values.length, ...nulls, data: words });
}

const INTEGER_TEXT = /^-?\d{1,18}$/;

/** A column of whole numbers written as digits (a count), as Int64; null stays null. */
function int64Column(values: ReadonlyArray<string | null | undefined>): Data<Int64> {
  const data = new BigInt64Array(values.length);
  const nulls = present(values, (i, v) => {
    if (!INTEGER_TEXT.test(v)) throw new Error(`not a whole number: ${v}`);
    data[i] = BigInt(v);
  });
  return makeData({ type: new Int64(), length: values.length, ...nulls, data });
}

/** The page as an Arrow IPC stream: its schema and one record batch (empty on an empty page). */
export function arrowStream<Row>(page: PageTable<Row>): Uint8Array {
  const cells = page.rows.map(page.cells);
  const column = (i: number) => cells.map((c) => c[i]);
  const children: Data[] = [timeColumn(column(0))];
  const fields = [new Field(page.columns[0], children[0].type, false)];
  for (let i = 1; i < page.columns.length; i++) {
    const name = page.columns[i];
    children.push(page.integer?.(name) ? int64Column(column(i)) : decimalColumn(column(i), page.scaleOf(name)));
    fields.push(new Field(page.columns[i], children[i].type, true));
  }
  const schema = new Schema(fields);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: cells.length, nullCount: 0, children }));
  return tableToIPC(new Table(schema, [batch]), 'stream');
}

let parquetWasm: Promise<typeof ParquetWasm> | undefined;

/**
 * Arrow IPC stream -> Parquet: Decimal128(38, s) becomes FIXED_LEN_BYTE_ARRAY(16) DECIMAL(38, s), the
 * time INT64 TIMESTAMP(isAdjustedToUTC=true, MILLIS). The WebAssembly module (5 MB) is loaded on the first call.
 */
export async function parquetOf(arrowIpc: Uint8Array): Promise<Uint8Array> {
  const pw = await (parquetWasm ??= import('parquet-wasm'));
  // Both are consumed by writeParquet (their WebAssembly memory freed).
  const table = pw.Table.fromIPCStream(arrowIpc);
  return pw.writeParquet(table, new pw.WriterPropertiesBuilder().setCompression(pw.Compression.ZSTD).build());
}

export async function dataframeBytes<Row>(format: DataframeFormat, page: PageTable<Row>): Promise<Uint8Array> {
  const ipc = arrowStream(page);
  return format === 'arrow' ? ipc : parquetOf(ipc);
}

/**
 * Build the page's bytes, tag them (over the format and parameters in `cache`, the next start
 * and the bytes), answer 304 when the client holds them already, else send them whole.
 */
export async function sendDataframe<Row>(req: Request, res: Response, format: DataframeFormat, page: PageTable<Row>, cache: TagInputs): Promise<void> {
  const bytes = await dataframeBytes(format, page);
  const tag = pageTag(cache, page.nextStart, () => entityTag([cache.params, page.nextStart ?? '', createHash('sha256').update(bytes).digest('base64url')]));
  if (page.nextStart !== null) res.setHeader('X-Next-Start', page.nextStart);
  if (answeredNotModified(req, res, tag, cache.span)) return;
  res.type(DATAFRAME_MEDIA_TYPES[format]).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
