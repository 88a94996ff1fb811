/**
 * The candles table's rows in binary COPY form, as every candle write lays them out (upserts,
 * the import's rows straight from its file, rollups): the columns, their types and key, the
 * fields around `time,open,high,low,close,volume`, and the rows of stored candles and rollups.
 * Pure: the demo seed's worker thread encodes with it too.
 */
import { BinaryRows, type ColumnType } from '../encoding/binary-rows';
import { writeCandle } from '../encoding/csv-fast-path';
import type { CandleInput, TradeFlow } from '../domain/csv-rows';
import type { RollupBars } from '../domain/imported-bars';
import type { CandleTimeframe } from '../domain/timeframe';
import { COPY_CHUNK_BYTES } from './bulk-upsert';

/** What surrounds each row's `time,open,high,low,close,volume` fields in the binary rows of `upsertRows`. */
export interface CandleRowFrame {
  /** The row's start and its fields before `time`. */
  begin(out: BinaryRows): void;
  /** Its fields after `volume` (trade flow NULL). */
  end(out: BinaryRows): void;
}

const CANDLE_COLUMNS = [
  'series_id',
  'timeframe',
  'time',
  'open',
  'high',
  'low',
  'close',
  'volume',
  'derived',
  'quote_volume',
  'trades',
  'taker_buy_volume',
  'taker_buy_quote_volume',
] as const;

/** The columns, key and types bulkUpsert writes candles with (the types read the binary rows back for a small write). */
export const CANDLE_LAYOUT = {
  columns: CANDLE_COLUMNS,
  key: ['series_id', 'timeframe', 'time'] as const,
  types: ['int4', 'text', 'timestamptz', 'numeric', 'numeric', 'numeric', 'numeric', 'numeric', 'bool', 'numeric', 'int8', 'numeric', 'numeric'] as readonly ColumnType[],
};

/** The frame of one series and timeframe's rows; `derived` marks rollups. */
export function candleRowFrame(seriesId: number, timeframe: CandleTimeframe, derived: boolean): CandleRowFrame {
  return {
    begin(out) {
      out.row(CANDLE_COLUMNS.length);
      out.int4(seriesId);
      out.ascii(timeframe);
    },
    // Imports carry no trade flow: it is written as NULL (a row with its flow writes its own tail).
    end: (out) => writeTail(out, {}, derived),
  };
}

/** The fields after `volume`: `derived` and the trade flow (NULL where not given). */
export function writeTail(out: BinaryRows, f: TradeFlow, derived: boolean): void {
  out.bool(derived);
  optional(out, f.quoteVolume);
  if (f.trades === undefined) out.null();
  else out.int8(f.trades);
  optional(out, f.takerBuyVolume);
  optional(out, f.takerBuyQuoteVolume);
}

function optional(out: BinaryRows, decimal: string | undefined): void {
  if (decimal === undefined) out.null();
  else out.decimalText(decimal);
}

/** `rows` (their trade flow, if any, included) appended to `out` in `frame`. */
export function writeInputRows(out: BinaryRows, frame: CandleRowFrame, rows: readonly CandleInput[]): void {
  for (const r of rows) {
    frame.begin(out);
    writeCandle(out, r);
    writeTail(out, r, false);
  }
}

/** Rollup bars in `frame` (a derived one), in chunks of about COPY_CHUNK_BYTES. */
export function* rollupCopyChunks(frame: CandleRowFrame, bars: RollupBars): Generator<Buffer> {
  const out = new BinaryRows(COPY_CHUNK_BYTES + 4096);
  for (let i = 0; i < bars.length; i++) {
    frame.begin(out);
    out.timestamptz(bars.time(i));
    // Each value at its own scale, as ROLLUP_SQL stores it.
    for (let k = 0; k < 5; k++) out.scaled(bars.mantissa(i, k), bars.scale(i, k));
    frame.end(out);
    if (out.length >= COPY_CHUNK_BYTES) yield out.take();
  }
  if (out.length > 0) yield out.take();
}
