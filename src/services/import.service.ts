/**
 * CSV import of candles and funding rates. Every row is validated while it streams into
 * PostgreSQL inside one transaction: one bad row rejects the file with `file:line: reason`
 * and nothing of it is written. Re-importing the same rows is idempotent (upsert).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Database } from '../db/database';
import { bulkUpsert } from '../db/bulk-upsert';
import { ensureSeries } from '../db/series.repository';
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
import type { CandleTimeframe } from '../domain/timeframe';
import type { MarketRef } from './market-ref';
import { Exchanges } from './exchanges';

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

/** Lines per chunk handed to COPY. */
const CHUNK_LINES = 2_000;

/** Most of a file's own text quoted back in a reason (a binary "line" can be megabytes). */
const REASON_MAX = 300;

/** A reason fit for one terminal line: control characters as `?`, long text cut short. */
function printable(reason: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = reason.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?');
  return clean.length > REASON_MAX ? `${clean.slice(0, REASON_MAX)}... (${clean.length} characters)` : clean;
}

/**
 * Read `file`, check its header, validate each data line with `toCsv` and yield COPY input.
 * Throws AppError(INVALID_IMPORT) naming the file and line of the first problem.
 */
async function* csvLines(
  file: string,
  header: readonly string[],
  toCsv: (cells: string[]) => { time: number; line: string },
  track: Tracker,
): AsyncGenerator<string> {
  track.rows = 0;
  track.from = null;
  track.to = null;
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let lineNo = 0;
  let sawHeader = false;
  let chunk: string[] = [];
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
        const { time, line } = toCsv(cells);
        track.rows++;
        if (track.from === null || time < track.from) track.from = time;
        if (track.to === null || time > track.to) track.to = time;
        chunk.push(line);
      } catch (err) {
        if (err instanceof RowError) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: ${printable(err.message)}`);
        throw err;
      }
      if (chunk.length >= CHUNK_LINES) {
        yield chunk.join('');
        chunk = [];
      }
    }
  } finally {
    rl.close();
  }
  if (!sawHeader) throw new AppError('INVALID_IMPORT', `${file}:1: empty file (expected header "${header.join(',')}")`);
  if (track.rows === 0) throw new AppError('INVALID_IMPORT', `${file}:${lineNo}: no data rows after the header`);
  if (chunk.length) yield chunk.join('');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export class ImportService {
  constructor(
    private readonly db: Database,
    private readonly exchanges: Exchanges,
  ) {}

  async importCandles(market: MarketRef, timeframe: CandleTimeframe, file: string): Promise<ImportResult> {
    const exchange = this.exchanges.require(market.exchange);
    const track: Tracker = { rows: 0, from: null, to: null };
    const seriesId = await this.db.transaction(async (tx) => {
      const id = await ensureSeries(tx, exchange, market.symbol);
      const prefix = `${id},${timeframe},`;
      await bulkUpsert(
        tx,
        {
          table: 'candles',
          columns: ['series_id', 'timeframe', 'time', 'open', 'high', 'low', 'close', 'volume', 'derived'],
          key: ['series_id', 'timeframe', 'time'],
        },
        () =>
          csvLines(
            file,
            CANDLE_HEADER,
            (cells) => {
              const r = parseCandleRow(cells, timeframe);
              return {
                time: r.time,
                line: `${prefix}${iso(r.time)},${r.open},${r.high},${r.low},${r.close},${r.volume},f\n`,
              };
            },
            track,
          ),
      );
      return id;
    });
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }

  async importFunding(market: MarketRef, file: string): Promise<ImportResult> {
    const exchange = this.exchanges.requirePerp(market.exchange);
    const track: Tracker = { rows: 0, from: null, to: null };
    const seriesId = await this.db.transaction(async (tx) => {
      const id = await ensureSeries(tx, exchange, market.symbol);
      await bulkUpsert(
        tx,
        { table: 'funding_rates', columns: ['series_id', 'time', 'rate'], key: ['series_id', 'time'] },
        () =>
          csvLines(
            file,
            FUNDING_HEADER,
            (cells) => {
              const r = parseFundingRow(cells);
              return { time: r.time, line: `${id},${iso(r.time)},${r.rate}\n` };
            },
            track,
          ),
      );
      return id;
    });
    return { seriesId, exchange, symbol: market.symbol, ...track };
  }
}
