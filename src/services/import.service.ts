/**
 * CSV import of candles and funding rates. Every row is validated while it streams into
 * the database inside one transaction: one bad row rejects the file with `file:line: reason`
 * and nothing of it is written. Re-importing the same rows is idempotent (upsert).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Store } from '../db/store';
import {
  CANDLE_HEADER,
  FUNDING_HEADER,
  RowError,
  checkHeader,
  parseCandleRow,
  parseFundingRow,
  splitCsvLine,
} from '../domain/csv-rows';
import { AppError } from '../domain/errors';
import type { MarketRef } from '../domain/market';
import type { CandleTimeframe } from '../domain/timeframe';
import type { Venues } from '../domain/venues';

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

/** Rows per batch handed to the repository (one COPY chunk). */
const BATCH_ROWS = 2_000;

/** Most of a file's own text quoted back in a reason (a binary "line" can be megabytes). */
const REASON_MAX = 300;

/** A reason fit for one terminal line: control characters as `?`, long text cut short. */
function printable(reason: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = reason.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?');
  return clean.length > REASON_MAX ? `${clean.slice(0, REASON_MAX)}... (${clean.length} characters)` : clean;
}

/**
 * Read `file`, check its header, validate each data line with `parse` and yield the rows in
 * batches. Throws AppError(INVALID_IMPORT) naming the file and line of the first problem.
 */
async function* rowBatches<R extends { time: number }>(
  file: string,
  header: readonly string[],
  parse: (cells: string[]) => R,
  track: Tracker,
): AsyncGenerator<R[]> {
  track.rows = 0;
  track.from = null;
  track.to = null;
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let lineNo = 0;
  let sawHeader = false;
  let batch: R[] = [];
  try {
    for await (const raw of rl) {
      lineNo++;
      if (raw.trim() === '') continue;
      try {
        // NUL or bytes that are not UTF-8 (decoded as U+FFFD): a binary, compressed or UTF-16 file.
        // eslint-disable-next-line no-control-regex
        if (/[\u0000\ufffd]/.test(raw)) throw new RowError('not CSV text (binary data, or not UTF-8)');
        const cells = splitCsvLine(raw);
        if (!sawHeader) {
          checkHeader(cells, header);
          sawHeader = true;
          continue;
        }
        const row = parse(cells);
        track.rows++;
        if (track.from === null || row.time < track.from) track.from = row.time;
        if (track.to === null || row.time > track.to) track.to = row.time;
        batch.push(row);
      } catch (err) {
        if (err instanceof RowError) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: ${printable(err.message)}`);
        throw err;
      }
      if (batch.length >= BATCH_ROWS) {
        yield batch;
        batch = [];
      }
    }
  } finally {
    rl.close();
  }
  if (!sawHeader) throw new AppError('INVALID_IMPORT', `${file}:1: empty file (expected header "${header.join(',')}")`);
  if (track.rows === 0) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: no data rows after the header`);
  if (batch.length) yield batch;
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
    private readonly venues: Venues,
  ) {}

  async importCandles(market: MarketRef, timeframe: CandleTimeframe, file: string): Promise<ImportResult> {
    const exchange = this.venues.parseExchange(market.exchange);
    await requireFile(file);
    const track: Tracker = { rows: 0, from: null, to: null };
    const seriesId = await this.store.transaction(async (tx) => {
      const id = await tx.series.ensure({ exchange, symbol: market.symbol });
      await tx.candles.upsert(id, timeframe, () => rowBatches(file, CANDLE_HEADER, (cells) => parseCandleRow(cells, timeframe), track));
      return id;
    });
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }

  async importFunding(market: MarketRef, file: string): Promise<ImportResult> {
    const exchange = this.venues.requirePerp(this.venues.parseExchange(market.exchange));
    await requireFile(file);
    const track: Tracker = { rows: 0, from: null, to: null };
    const seriesId = await this.store.transaction(async (tx) => {
      const id = await tx.series.ensure({ exchange, symbol: market.symbol });
      await tx.funding.upsert(id, () => rowBatches(file, FUNDING_HEADER, parseFundingRow, track));
      return id;
    });
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }
}
