/**
 * Validation of imported CSV rows. Pure: the import service streams lines through these
 * functions and writes nothing unless every row of the file passes.
 */
import { compareDecimal, parseDecimal } from './decimal';
import { parseTimestamp } from './time';
import { FUNDING_INTERVAL_MS, isAligned, type CandleTimeframe } from './timeframe';

export const CANDLE_HEADER = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;
export const FUNDING_HEADER = ['time', 'rate'] as const;

/** A candle as imported: validated, exact decimals kept as text. */
export interface CandleInput {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

/** A funding rate as imported. */
export interface FundingRateInput {
  time: number;
  rate: string;
}

/** A row-level problem; the import service prefixes it with `file:line`. */
export class RowError extends Error {
  override name = 'RowError';
}

export function splitCsvLine(line: string): string[] {
  return line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
}

export function checkHeader(cells: string[], expected: readonly string[]): void {
  const got = cells.map((c) => c.replace(/^\uFEFF/, '').toLowerCase());
  if (got.length !== expected.length || got.some((c, i) => c !== expected[i])) {
    throw new RowError(`header must be "${expected.join(',')}", got "${cells.join(',')}"`);
  }
}

function cellCount(cells: string[], n: number): void {
  if (cells.length !== n) throw new RowError(`expected ${n} columns, got ${cells.length}`);
}

function time(cell: string): number {
  const t = parseTimestamp(cell);
  if (t === null) throw new RowError(`time "${cell}" is not ISO 8601 or Unix milliseconds`);
  return t;
}

function decimal(cell: string, name: string): string {
  const d = parseDecimal(cell);
  if (d === null) throw new RowError(`${name} "${cell}" is not a finite number`);
  return d;
}

export function parseCandleRow(cells: string[], tf: CandleTimeframe): CandleInput {
  cellCount(cells, CANDLE_HEADER.length);
  const t = time(cells[0]);
  if (!isAligned(t, tf)) throw new RowError(`time "${cells[0]}" is not aligned to ${tf}`);
  const row = {
    time: t,
    open: decimal(cells[1], 'open'),
    high: decimal(cells[2], 'high'),
    low: decimal(cells[3], 'low'),
    close: decimal(cells[4], 'close'),
    volume: decimal(cells[5], 'volume'),
  };
  if (compareDecimal(row.low, '0') <= 0) throw new RowError('prices must be positive');
  if (compareDecimal(row.high, row.open) < 0 || compareDecimal(row.high, row.close) < 0) {
    throw new RowError('high is below open or close');
  }
  if (compareDecimal(row.low, row.open) > 0 || compareDecimal(row.low, row.close) > 0) {
    throw new RowError('low is above open or close');
  }
  if (compareDecimal(row.volume, '0') < 0) throw new RowError('volume is negative');
  return row;
}

export function parseFundingRow(cells: string[]): FundingRateInput {
  cellCount(cells, FUNDING_HEADER.length);
  const t = time(cells[0]);
  if (t % FUNDING_INTERVAL_MS !== 0) throw new RowError(`time "${cells[0]}" is not aligned to the hour`);
  return { time: t, rate: decimal(cells[1], 'rate') };
}
