/** A perpetual's context over REST (GET /v1/derivatives): snake_case fields, the page head, JSON and CSV. */
import { z } from 'zod';
import type { Derivatives, Page } from '../../domain/market';
import type { DerivativesPlan } from '../../services/reads/derivatives.service';
import type { Representation } from '../data-route';
import { CANDLE_TIMEFRAMES } from '../../domain/timeframe';
import { decimal, pageJsonBytes, pageSchema, restShape, timestamp } from './shape';

const six = (description: string) => decimal(`${description}, 6 decimals.`);
const nullableSix = (description: string) => z.string().nullable().meta({ description: `${description}, 6 decimals; null while the venue's book is empty.` });

export const DERIVATIVES = restShape<Derivatives>({
  time: { from: 'time', schema: timestamp },
  open_interest: { from: 'openInterest', schema: six('Open interest at the end of the period, in base units') },
  open_interest_open: { from: 'openInterestOpen', schema: six('Open interest at the first update of the period') },
  open_interest_high: { from: 'openInterestHigh', schema: six('Highest open interest of the period') },
  open_interest_low: { from: 'openInterestLow', schema: six('Lowest open interest of the period') },
  open_interest_value: { from: 'openInterestValue', schema: six('open_interest x mark_price, in the quote asset') },
  mark_price: { from: 'markPrice', schema: six("The venue's mark price at the end of the period") },
  oracle_price: { from: 'oraclePrice', schema: six("The venue's oracle (index) price") },
  mid_price: { from: 'midPrice', schema: nullableSix("The venue's book mid price") },
  predicted_funding_rate: { from: 'predictedFundingRate', schema: decimal("The venue's predicted hourly funding rate, 8 decimals.", '0.00001250') },
  venue_premium: {
    from: 'venuePremium',
    schema: z.string().nullable().meta({ description: "The venue's own premium field, 8 decimals (not funding's perp/spot premium); null while its book is empty.", examples: ['0.00031774'] }),
  },
});

/** Places of the columns that do not have 6. */
export const DERIVATIVES_PLACES: Record<string, number> = { predicted_funding_rate: 8, venue_premium: 8 };

export const DERIVATIVES_PAGE_SCHEMA = pageSchema({ symbol: z.string(), exchange: z.string(), timeframe: z.enum(CANDLE_TIMEFRAMES) }, DERIVATIVES.schema);

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
