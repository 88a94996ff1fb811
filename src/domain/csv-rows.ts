/**
 * Validation of imported CSV rows. Pure: the import service streams lines through these
 * functions and writes nothing unless every row of the file passes.
 */
import { compareDecimal, parseDecimal } from './decimal';
import { parseTimestamp } from './time';
import { FUNDING_INTERVAL_MS, isAligned, type CandleTimeframe } from './timeframe';

export const CANDLE_HEADER = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;
export const FUNDING_HEADER = ['time', 'rate'] as const;

/**
 * The trade flow a venue sends with a candle (Binance: quote volume, trades, taker-buy base and
 * quote volume; Hyperliquid: trades). Absent where it is not given: imports, other venues.
 */
export interface TradeFlow {
  quoteVolume?: string;
  /** Number of trades, as integer digits. */
  trades?: string;
  takerBuyVolume?: string;
  takerBuyQuoteVolume?: string;
}

/** A candle as imported (or ingested, with its trade flow): validated, exact decimals kept as text. */
export interface CandleInput extends TradeFlow {
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

/** A time cell: ISO 8601 or Unix milliseconds. */
export function timeCell(cell: string): number {
  const t = parseTimestamp(cell);
  if (t === null) throw new RowError(`time "${cell}" is not ISO 8601 or Unix milliseconds`);
  return t;
}

/** A decimal cell, canonical. */
export function decimalCell(cell: string, name: string): string {
  const d = parseDecimal(cell);
  if (d === null) throw new RowError(`${name} "${cell}" is not a finite number`);
  return d;
}

export function parseCandleRow(cells: string[], tf: CandleTimeframe): CandleInput {
  cellCount(cells, CANDLE_HEADER.length);
  const t = timeCell(cells[0]);
  if (!isAligned(t, tf)) throw new RowError(`time "${cells[0]}" is not aligned to ${tf}`);
  const row = {
    time: t,
    open: decimalCell(cells[1], 'open'),
    high: decimalCell(cells[2], 'high'),
    low: decimalCell(cells[3], 'low'),
    close: decimalCell(cells[4], 'close'),
    volume: decimalCell(cells[5], 'volume'),
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
  const t = timeCell(cells[0]);
  if (t % FUNDING_INTERVAL_MS !== 0) throw new RowError(`time "${cells[0]}" is not aligned to the hour`);
  return { time: t, rate: decimalCell(cells[1], 'rate') };
}

const TRADES = /^(0|[1-9]\d{0,17})$/;

/** The trade flow checked: volumes finite and not negative, trades a whole number; canonical decimals. */
export function checkTradeFlow(f: TradeFlow): TradeFlow {
  const out: TradeFlow = {};
  for (const name of ['quoteVolume', 'takerBuyVolume', 'takerBuyQuoteVolume'] as const) {
    const v = f[name];
    if (v === undefined) continue;
    const d = decimalCell(v, name);
    if (compareDecimal(d, '0') < 0) throw new RowError(`${name} is negative`);
    out[name] = d;
  }
  if (f.trades !== undefined) {
    if (!TRADES.test(f.trades)) throw new RowError(`trades "${f.trades}" is not a whole number`);
    out.trades = f.trades;
  }
  return out;
}
