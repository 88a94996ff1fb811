/**
 * CSV import of candles and funding rates. Every row is validated while it streams into
 * the database inside one transaction: one bad row rejects the file with `file:line: reason`
 * and nothing of it is written. Re-importing the same rows is idempotent (upsert).
 *
 * The file is read in blocks of bytes (csv-lines.ts). A candle line of the common shape is
 * validated from its bytes and written straight into the COPY text (csv-fast-path.ts); any
 * other line goes through the general parser (csv-rows.ts), which accepts it or names the
 * problem, so both paths accept and write the same rows.
 */
import { open, stat } from 'node:fs/promises';
import type { CandleLineFrame } from '../db/candles.repository';
import type { Store } from '../db/store';
import { AsciiText } from '../domain/ascii-text';
import { candleLineTime, fastCandleLine, writeCandle } from '../domain/csv-fast-path';
import {
  CANDLE_HEADER,
  FUNDING_HEADER,
  RowError,
  checkHeader,
  parseCandleRow,
  parseFundingRow,
  splitCsvLine,
  type FundingRateInput,
} from '../domain/csv-rows';
import { AppError } from '../domain/errors';
import type { MarketRef } from '../domain/market';
import { TIMEFRAME_MS, type CandleTimeframe } from '../domain/timeframe';
import type { Exchanges } from '../domain/exchanges';
import { eachLine, lineBlocks } from './csv-lines';

export interface ImportResult {
  seriesId: number;
  exchange: string;
  symbol: string;
  rows: number;
  /** First and last row time (ms); null for an empty file. */
  from: number | null;
  to: number | null;
}

interface Tracker {
  rows: number;
  from: number | null;
  to: number | null;
}

function count(track: Tracker, time: number): void {
  track.rows++;
  if (track.from === null || time < track.from) track.from = time;
  if (track.to === null || time > track.to) track.to = time;
}

/** Most of a file's own text quoted back in a reason (a binary "line" can be megabytes). */
const REASON_MAX = 300;

/** A reason fit for one terminal line: control characters as `?`, long text cut short. */
function printable(reason: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = reason.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?');
  return clean.length > REASON_MAX ? `${clean.slice(0, REASON_MAX)}... (${clean.length} characters)` : clean;
}

/** A line's text; NUL or bytes that are not UTF-8 (decoded as U+FFFD): a binary, compressed or UTF-16 file. */
function textOf(block: Buffer, start: number, end: number): string {
  const raw = block.toString('utf8', start, end);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000\ufffd]/.test(raw)) throw new RowError('not CSV text (binary data, or not UTF-8)');
  return raw;
}

/**
 * Read `file`: its first line that is not blank must be `header`; every later line that is
 * not blank is handed to `data` (its bytes in the block). After each block, yields what `take`
 * returns, unless null. Throws AppError(INVALID_IMPORT) naming the file and line of the first
 * problem, also when the file has no header or no data row.
 */
async function* dataLines<T>(
  file: string,
  header: readonly string[],
  track: Tracker,
  data: (block: Buffer, start: number, end: number) => void,
  take: () => T | null,
): AsyncGenerator<T> {
  track.rows = 0;
  track.from = null;
  track.to = null;
  let lineNo = 0;
  let sawHeader = false;
  for await (const block of lineBlocks(file)) {
    try {
      eachLine(block, (start, end) => {
        lineNo++;
        if (start === end) return;
        // A line starting with a visible ASCII character is not blank; others are decoded to tell.
        const c = block[start];
        if (!(c > 32 && c < 127) && block.toString('utf8', start, end).trim() === '') return;
        if (sawHeader) return data(block, start, end);
        checkHeader(splitCsvLine(textOf(block, start, end)), header);
        sawHeader = true;
      });
    } catch (err) {
      if (err instanceof RowError) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: ${printable(err.message)}`);
      throw err;
    }
    const out = take();
    if (out !== null) yield out;
  }
  if (!sawHeader) throw new AppError('INVALID_IMPORT', `${file}:1: empty file (expected header "${header.join(',')}")`);
  if (track.rows === 0) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: no data rows after the header`);
}

/** The candles of `file` as COPY text: each row `frame.prefix` + `time,open,high,low,close,volume` + `frame.suffix`. */
function candleText(file: string, timeframe: CandleTimeframe, frame: CandleLineFrame, track: Tracker): AsyncGenerator<string> {
  const out = new AsciiText();
  const period = TIMEFRAME_MS[timeframe];
  return dataLines(
    file,
    CANDLE_HEADER,
    track,
    (block, start, end) => {
      out.ascii(frame.prefix);
      let time = fastCandleLine(block, start, end, period, out);
      if (time < 0) {
        const row = parseCandleRow(splitCsvLine(textOf(block, start, end)), timeframe);
        writeCandle(out, row);
        time = row.time;
      }
      out.ascii(frame.suffix);
      count(track, time);
    },
    () => (out.length > 0 ? out.take() : null),
  );
}

/** The time of a candle line, by the common shape or the general parser; -1 when it has none that can be read. */
function lineTime(block: Buffer, start: number, end: number, timeframe: CandleTimeframe): number {
  const time = candleLineTime(block, start, end);
  if (time >= 0) return time;
  try {
    return parseCandleRow(splitCsvLine(textOf(block, start, end)), timeframe).time;
  } catch {
    return -1;
  }
}

/**
 * First and last time of the candle rows of `file` (null: none), read before the import so that
 * their time partitions exist before the rows stream in: a pass over the file. A row whose time
 * cannot be read is skipped here: the import itself then refuses it with its line.
 */
async function candleSpan(file: string, timeframe: CandleTimeframe): Promise<{ fromMs: number; toMs: number } | null> {
  const track: Tracker = { rows: 0, from: null, to: null };
  const lines = dataLines(
    file,
    CANDLE_HEADER,
    track,
    (block, start, end) => {
      const time = lineTime(block, start, end, timeframe);
      if (time >= 0) count(track, time);
    },
    () => null,
  );
  for await (const _ of lines);
  return track.from === null || track.to === null ? null : { fromMs: track.from, toMs: track.to };
}

/** Bytes read from the end of a file for its last line. */
const TAIL_BYTES = 64 * 1024;

/**
 * The span of a file whose rows are in time order (as files are written), from its first and
 * last data lines only: no pass over the file. Null when either cannot be read so. A file in
 * another order may have rows outside it: their partitions are then missing, the COPY is
 * refused and the import runs again after a full `candleSpan`.
 */
async function endsSpan(file: string, timeframe: CandleTimeframe): Promise<{ fromMs: number; toMs: number } | null> {
  let first = -1;
  const track: Tracker = { rows: 0, from: null, to: null };
  const head = dataLines(
    file,
    CANDLE_HEADER,
    track,
    (block, start, end) => {
      if (first < 0) first = lineTime(block, start, end, timeframe);
    },
    () => (first !== -1 ? first : null),
  );
  try {
    for await (const _ of head) break;
  } catch {
    return null; // the import names the problem
  }
  if (first < 0) return null;
  const fh = await open(file, 'r');
  let tail: Buffer;
  let size: number;
  try {
    size = (await fh.stat()).size;
    const len = Math.min(size, TAIL_BYTES);
    tail = Buffer.alloc(len);
    await fh.read(tail, 0, len, size - len);
  } finally {
    await fh.close();
  }
  let end = tail.length;
  while (end > 0 && (tail[end - 1] === 10 || tail[end - 1] === 13 || tail[end - 1] === 32 || tail[end - 1] === 9)) end--;
  let start = end;
  while (start > 0 && tail[start - 1] !== 10 && tail[start - 1] !== 13) start--;
  if (start === 0 && tail.length < size) return null; // a last line longer than the tail read
  const last = lineTime(tail, start, end, timeframe);
  return last < 0 ? null : { fromMs: Math.min(first, last), toMs: Math.max(first, last) };
}

/** PostgreSQL refused a row for want of its partition (SQLSTATE 23514, "no partition of relation ... found for row"). */
function missingPartition(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '23514' && typeof e.message === 'string' && e.message.includes('no partition');
}

/** The funding rates of `file`, a batch per block. */
function fundingBatches(file: string, track: Tracker): AsyncGenerator<FundingRateInput[]> {
  let batch: FundingRateInput[] = [];
  return dataLines(
    file,
    FUNDING_HEADER,
    track,
    (block, start, end) => {
      const row = parseFundingRow(splitCsvLine(textOf(block, start, end)));
      count(track, row.time);
      batch.push(row);
    },
    () => {
      if (batch.length === 0) return null;
      const out = batch;
      batch = [];
      return out;
    },
  );
}

/** A path that is no readable file is named plainly, not as Node's ENOENT/EISDIR text. */
async function requireFile(file: string): Promise<void> {
  let st;
  try {
    st = await stat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new AppError('INVALID_IMPORT', code === 'ENOENT' ? `file not found: ${file}` : `cannot read ${file} (${code ?? 'error'})`);
  }
  if (st.isDirectory()) throw new AppError('INVALID_IMPORT', `is a directory: ${file}`);
}

export class ImportService {
  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly exchanges: Exchanges,
  ) {}

  async importCandles(market: MarketRef, timeframe: CandleTimeframe, file: string): Promise<ImportResult> {
    const exchange = this.exchanges.parseExchange(market.exchange);
    await requireFile(file);
    const track: Tracker = { rows: 0, from: null, to: null };
    const write = (span: { fromMs: number; toMs: number }) =>
      this.store.transaction(async (tx) => {
        const id = await tx.series.ensure({ exchange, symbol: market.symbol });
        await tx.candles.upsertText(id, timeframe, span, (frame) => candleText(file, timeframe, frame, track));
        return id;
      });
    const fullSpan = async () => (await candleSpan(file, timeframe)) ?? { fromMs: 0, toMs: -1 };
    // The partitions of the rows' span first: from the file's ends, or from a pass over it.
    const ends = await endsSpan(file, timeframe);
    let seriesId: number;
    try {
      seriesId = await write(ends ?? (await fullSpan()));
    } catch (err) {
      // Rows out of time order, outside the span of the ends: again with the whole file's span.
      if (ends === null || !missingPartition(err)) throw err;
      seriesId = await write(await fullSpan());
    }
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }

  async importFunding(market: MarketRef, file: string): Promise<ImportResult> {
    const exchange = this.exchanges.requirePerp(this.exchanges.parseExchange(market.exchange));
    await requireFile(file);
    const track: Tracker = { rows: 0, from: null, to: null };
    const seriesId = await this.store.transaction(async (tx) => {
      const id = await tx.series.ensure({ exchange, symbol: market.symbol });
      await tx.funding.upsert(id, () => fundingBatches(file, track));
      return id;
    });
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }
}
