/** A perpetual's context over REST (GET /v1/derivatives): snake_case fields, the page head, JSON and CSV. */
import { z } from 'zod';
import { isBackfillGap, type Derivatives, type Page } from '../../domain/market';
import type { DerivativesPlan } from '../../services/reads/derivatives.service';
import type { Representation } from '../data-route';
import { CANDLE_TIMEFRAMES } from '../../domain/timeframe';
import { decimal, nullableDecimal, pageJsonBytes, pageSchema, restShape, timestamp, type RestShape } from './shape';

const nullableSix = (description: string) => z.string().nullable().meta({ description: `${description}, 6 decimals; null while the venue's book is empty.` });

/**
 * The row's shape. `backfill`: a served exchange backfills its context, so the columns its
 * venue keeps no history of (BACKFILL_GAPS) are declared nullable; without one they stay
 * declared non-null (the document's bytes with EXCHANGES=perp,spot).
 */
function derivativesShape(backfill: boolean): RestShape<Derivatives> {
  /** A decimal column; `text` ends with its places. */
  const column = (from: keyof Derivatives & string, text: string, example?: string) => ({
    from,
    schema: backfill && isBackfillGap(from) ? nullableDecimal(`${text}; null where the period was backfilled from the venue's history, which lacks it.`, example) : decimal(`${text}.`, example),
  });
  return restShape<Derivatives>({
    time: { from: 'time', schema: timestamp },
    open_interest: column('openInterest', 'Open interest at the end of the period, in base units, 6 decimals'),
    open_interest_open: column('openInterestOpen', 'Open interest at the first update of the period, 6 decimals'),
    open_interest_high: column('openInterestHigh', 'Highest open interest of the period, 6 decimals'),
    open_interest_low: column('openInterestLow', 'Lowest open interest of the period, 6 decimals'),
    open_interest_value: column('openInterestValue', 'open_interest x mark_price, in the quote asset, 6 decimals'),
    mark_price: column('markPrice', "The venue's mark price at the end of the period, 6 decimals"),
    oracle_price: column('oraclePrice', "The venue's oracle (index) price, 6 decimals"),
    mid_price: { from: 'midPrice', schema: nullableSix("The venue's book mid price") },
    predicted_funding_rate: column('predictedFundingRate', "The venue's predicted hourly funding rate, 8 decimals", '0.00001250'),
    venue_premium: {
      from: 'venuePremium',
      schema: z.string().nullable().meta({ description: "The venue's own premium field, 8 decimals (not funding's perp/spot premium); null while its book is empty.", examples: ['0.00031774'] }),
    },
  });
}

/**
 * The rows as written, whatever the document declares: a null is written as null (JSON) or an
 * empty cell (CSV), never as text; without a backfilling exchange the gaps hold none.
 */
export const DERIVATIVES = derivativesShape(true);

/** Places of the columns that do not have 6. */
export const DERIVATIVES_PLACES: Record<string, number> = { predicted_funding_rate: 8, venue_premium: 8 };

const HEAD = { symbol: z.string(), exchange: z.string(), timeframe: z.enum(CANDLE_TIMEFRAMES) };
const RECORDED_PAGE_SCHEMA = pageSchema(HEAD, derivativesShape(false).schema);
const BACKFILLED_PAGE_SCHEMA = pageSchema(HEAD, DERIVATIVES.schema);

/** The page's schema in the document: `backfill` when a served exchange backfills its context (Exchanges.backfillsContext). */
export const derivativesPageSchema = (backfill: boolean) => (backfill ? BACKFILLED_PAGE_SCHEMA : RECORDED_PAGE_SCHEMA);

export const DERIVATIVES_REPRESENTATION: Representation<DerivativesPlan, Page<Derivatives>, Derivatives> = {
  json: (q, p) => pageJsonBytes({ symbol: q.symbol, exchange: q.exchange, timeframe: q.timeframe, count: p.count, next_start: p.nextStart }, DERIVATIVES.jsonRows(p.data)),
  table: (_q, p: Page<Derivatives>) => ({
    columns: DERIVATIVES.names,
    rows: p.data,
    cells: DERIVATIVES.csvCells,
    scaleOf: (column) => DERIVATIVES_PLACES[column] ?? 6,
    nextStart: p.nextStart,
  }),
};
