/**
 * The perpetual's context (open interest, mark, oracle and mid prices, the predicted funding
 * rate, the venue's premium) as minutes: a venue pushes it without timestamps, so an update
 * belongs to the minute of the local clock that received it, a minute is final once it has
 * ended, and a minute without an update is missing (nothing is repeated). Also the checks of
 * one context and the CSV rows of `mds import derivatives`. Pure.
 */
import { decimalCell, RowError, timeCell } from './csv-rows';
import { compareDecimal } from './decimal';
import { isAligned } from './timeframe';

/** One update of a venue's context of an instrument, decimals as exact text. */
export interface PerpContext {
  /** In base units. */
  openInterest: string;
  markPrice: string;
  oraclePrice: string;
  /** Null while the book is empty. */
  midPrice: string | null;
  /** The venue's predicted rate for the coming funding hour. */
  fundingRate: string;
  /** The venue's own premium (not the API's perp/spot premium); null while the book is empty. */
  premium: string | null;
}

/**
 * A stored row: one minute (or a rollup's bucket) of context. A backfilled minute (the venue's
 * mark, index and premium klines) has no open interest, mid or predicted rate: null.
 */
export interface DerivativesInput {
  /** Open time of the minute. */
  time: number;
  openInterestOpen: string | null;
  openInterestHigh: string | null;
  openInterestLow: string | null;
  openInterest: string | null;
  markPrice: string;
  oraclePrice: string;
  midPrice: string | null;
  predictedFundingRate: string | null;
  venuePremium: string | null;
}

const MINUTE = 60_000;

/** Throws RowError unless open interest is not negative and the prices are positive. */
export function checkContext(c: PerpContext): PerpContext {
  if (compareDecimal(c.openInterest, '0') < 0) throw new RowError('open interest is negative');
  for (const [name, v] of [['mark price', c.markPrice], ['oracle price', c.oraclePrice], ['mid price', c.midPrice]] as const) {
    if (v !== null && compareDecimal(v, '0') <= 0) throw new RowError(`${name} must be positive`);
  }
  return c;
}

/** The row of a minute that saw one context: open interest is its open, high, low and close. */
export function contextRow(minute: number, c: PerpContext): DerivativesInput {
  return {
    time: minute,
    openInterestOpen: c.openInterest,
    openInterestHigh: c.openInterest,
    openInterestLow: c.openInterest,
    openInterest: c.openInterest,
    markPrice: c.markPrice,
    oraclePrice: c.oraclePrice,
    midPrice: c.midPrice,
    predictedFundingRate: c.fundingRate,
    venuePremium: c.premium,
  };
}

/** A later update of the same minute: open interest extends its range, the rest is replaced. */
function nextRow(row: DerivativesInput, c: PerpContext): DerivativesInput {
  const oi = c.openInterest;
  return {
    ...contextRow(row.time, c),
    openInterestOpen: row.openInterestOpen,
    openInterestHigh: row.openInterestHigh === null || compareDecimal(oi, row.openInterestHigh) > 0 ? oi : row.openInterestHigh,
    openInterestLow: row.openInterestLow === null || compareDecimal(oi, row.openInterestLow) < 0 ? oi : row.openInterestLow,
  };
}

/**
 * The minutes being recorded, per key (a series): `update` folds a context into the minute of
 * `atMs` (when it was received, or the moment a venue's late answer describes), `close` hands
 * over the minutes that have ended. A minute stays open `settleMs` past its end for values a
 * venue publishes only once it closed (Binance USD-M's premium kline); with 0, a new minute's
 * update ends the one before at once. An update for a minute already handed over is dropped: a
 * written minute is final.
 */
export class ContextMinutes<K> {
  /** Per key, the open minutes, oldest first: the current one, and the one before while it settles. */
  private readonly open = new Map<K, DerivativesInput[]>();

  constructor(private readonly settleMs = 0) {}

  /** Fold in an update; returns the key's minute this update ended, if any. */
  update(key: K, c: PerpContext, atMs: number): DerivativesInput | null {
    const minute = Math.floor(atMs / MINUTE) * MINUTE;
    const rows = this.open.get(key) ?? [];
    const at = rows.findIndex((r) => r.time === minute);
    if (at >= 0) {
      rows[at] = nextRow(rows[at], c);
      return null;
    }
    if (rows.length > 0 && rows[rows.length - 1].time > minute) return null;
    rows.push(contextRow(minute, c));
    this.open.set(key, rows);
    const keep = this.settleMs > 0 ? 2 : 1;
    return rows.length > keep ? rows.shift()! : null;
  }

  /** The minutes that ended (and settled) by `nowMs`, final, removed from the open ones. */
  close(nowMs: number): Array<[K, DerivativesInput]> {
    const out: Array<[K, DerivativesInput]> = [];
    for (const [key, rows] of this.open) {
      while (rows.length > 0 && rows[0].time + MINUTE + this.settleMs <= nowMs) out.push([key, rows.shift()!]);
      if (rows.length === 0) this.open.delete(key);
    }
    return out;
  }
}

/** The header of `mds import derivatives`: one snapshot of the context per minute. */
export const DERIVATIVES_HEADER = ['time', 'open_interest', 'mark_price', 'oracle_price', 'mid_price', 'predicted_funding_rate', 'venue_premium'] as const;

/**
 * A row of a derivatives CSV: a minute's values, mid price and venue premium may be empty
 * (null, as the venue sends them for an empty book). The minute's open interest is also its
 * open, high and low.
 */
export function parseDerivativesRow(cells: string[]): DerivativesInput {
  if (cells.length !== DERIVATIVES_HEADER.length) throw new RowError(`expected ${DERIVATIVES_HEADER.length} columns, got ${cells.length}`);
  const time = timeCell(cells[0]);
  if (!isAligned(time, '1m')) throw new RowError(`time "${cells[0]}" is not aligned to 1m`);
  const optional = (i: number) => (cells[i] === '' ? null : decimalCell(cells[i], DERIVATIVES_HEADER[i]));
  const c = checkContext({
    openInterest: decimalCell(cells[1], 'open_interest'),
    markPrice: decimalCell(cells[2], 'mark_price'),
    oraclePrice: decimalCell(cells[3], 'oracle_price'),
    midPrice: optional(4),
    fundingRate: decimalCell(cells[5], 'predicted_funding_rate'),
    premium: optional(6),
  });
  return contextRow(time, c);
}
