/**
 * CSV import of candles, funding rates and a perpetual's context. Every row is validated while it streams into the
 * database inside one transaction: one bad row rejects the file with `file:line: reason` and
 * nothing of it is written; re-importing the same rows is idempotent (upsert). Lines are found in
 * blocks of bytes (csv-lines.ts); a candle line of the common shape goes straight into the COPY
 * text (csv-fast-path.ts), any other through the general parser (csv-rows.ts), which accepts the
 * same rows or names the problem.
 */
import { stat } from 'node:fs/promises';
import type { CandleRowFrame } from '../../db/candle-rows';
import { isMissingPartition } from '../../db/pg-errors';
import type { Store } from '../../db/store';
import { BinaryRows } from '../../encoding/binary-rows';
import { acceptedDecimals, candleLineTime, fastCandleLine, writeCandle } from '../../encoding/csv-fast-path';
import {
  CANDLE_HEADER,
  FUNDING_HEADER,
  parseCandleRow,
  parseFundingRow,
  splitCsvLine,
} from '../../domain/csv-rows';
import { DERIVATIVES_HEADER, parseDerivativesRow } from '../../domain/derivatives';
import { ImportedBars } from '../../domain/imported-bars';
import { AppError } from '../../domain/errors';
import type { MarketRef } from '../../domain/market';
import { TIMEFRAME_MS, type CandleTimeframe } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import { count, dataLines, lastLine, lineText, type Tracker } from './csv-lines';

export interface ImportResult {
  seriesId: number;
  exchange: string;
  symbol: string;
  rows: number;
  /** First and last row time (ms); null for an empty file. */
  from: number | null;
  to: number | null;
  /**
   * The rows kept in memory with their rollups, when the series had no candles before and every
   * row could be kept (RecomputeService.afterCandlesChanged then reads none back).
   */
  bars?: ImportedBars;
}

/**
 * The candles of `file` as binary COPY rows: each row `frame.begin`, `time,open,high,low,close,volume`,
 * `frame.end`; each row also kept in `bars` when given.
 */
function candleCopyChunks(file: string, timeframe: CandleTimeframe, frame: CandleRowFrame, track: Tracker, bars?: ImportedBars): AsyncGenerator<Buffer> {
  const out = new BinaryRows(1 << 20);
  const period = TIMEFRAME_MS[timeframe];
  const values = new Float64Array(10);
  return dataLines(
    file,
    CANDLE_HEADER,
    track,
    (block, start, end) => {
      frame.begin(out);
      let time = fastCandleLine(block, start, end, period, out);
      if (time < 0) {
        const row = parseCandleRow(splitCsvLine(lineText(block, start, end)), timeframe);
        writeCandle(out, row);
        time = row.time;
        if (bars?.usable) bars.addRow(row);
      } else if (bars?.usable) {
        if (acceptedDecimals(block, values)) bars.add(time, values);
        else bars.drop();
      }
      frame.end(out);
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
    return parseCandleRow(splitCsvLine(lineText(block, start, end)), timeframe).time;
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
  const tail = await lastLine(file);
  if (tail === null) return null; // a last line longer than the tail read
  const last = lineTime(tail.block, tail.start, tail.end, timeframe);
  return last < 0 ? null : { fromMs: Math.min(first, last), toMs: Math.max(first, last) };
}

/** The rows of `file` under `header`, each line parsed by `parse` (general parser), a batch per block. */
function rowBatches<Row extends { time: number }>(file: string, header: readonly string[], track: Tracker, parse: (cells: string[]) => Row): AsyncGenerator<Row[]> {
  let batch: Row[] = [];
  return dataLines(
    file,
    header,
    track,
    (block, start, end) => {
      const row = parse(splitCsvLine(lineText(block, start, end)));
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
    let bars: ImportedBars | undefined;
    const write = (span: { fromMs: number; toMs: number }) =>
      this.store.transaction(async (tx) => {
        const id = await tx.series.ensure({ exchange, symbol: market.symbol });
        // A first import keeps its rows: nothing stored can share their buckets.
        bars = (await tx.candles.isEmpty(id)) ? new ImportedBars(timeframe) : undefined;
        await tx.candles.upsertRows(id, timeframe, span, (frame) => candleCopyChunks(file, timeframe, frame, track, bars));
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
      if (ends === null || !isMissingPartition(err)) throw err;
      seriesId = await write(await fullSpan());
    }
    return { seriesId, exchange, symbol: market.symbol, ...track, ...(bars?.usable && track.rows > 0 ? { bars } : {}) };
  }

  async importFunding(market: MarketRef, file: string): Promise<ImportResult> {
    const exchange = this.exchanges.requirePerp(this.exchanges.parseExchange(market.exchange));
    await requireFile(file);
    const track: Tracker = { rows: 0, from: null, to: null };
    const seriesId = await this.store.transaction(async (tx) => {
      const id = await tx.series.ensure({ exchange, symbol: market.symbol });
      const f = this.exchanges.get(exchange)!.funding!;
      await tx.funding.upsert(id, () => rowBatches(file, FUNDING_HEADER, track, parseFundingRow), { maxHours: f.maxHours, firstHours: f.defaultHours });
      return id;
    });
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }

  /** A perpetual's context per minute (`time,open_interest,mark_price,oracle_price,mid_price,predicted_funding_rate,venue_premium`). */
  async importDerivatives(market: MarketRef, file: string): Promise<ImportResult> {
    const exchange = this.exchanges.requirePerp(this.exchanges.parseExchange(market.exchange), 'perpetual context');
    await requireFile(file);
    const track: Tracker = { rows: 0, from: null, to: null };
    const seriesId = await this.store.transaction(async (tx) => {
      const id = await tx.series.ensure({ exchange, symbol: market.symbol });
      await tx.derivatives.upsert(id, () => rowBatches(file, DERIVATIVES_HEADER, track, parseDerivativesRow));
      return id;
    });
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }
}
