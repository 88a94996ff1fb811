/** Funding rates over REST: snake_case fields; rate_normalized and premium only on normalized reads. */
import { z } from 'zod';
import type { FundingRate, FundingRequest, Page } from '../../domain/market';
import type { FundingPlan } from '../../services/reads/funding.service';
import type { Representation } from '../data-route';
import { decimal, pageJsonBytes, pageSchema, restShape, timestamp } from './shape';

export const FUNDING_RATE = restShape<FundingRate>({
  time: { from: 'time', schema: timestamp },
  rate: { from: 'rate', schema: decimal('Hourly funding rate, 8 decimals (0.0001 = 0.01%).', '0.00001234') },
  rate_normalized: {
    from: 'rateNormalized',
    schema: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'normalized=true: z-score over 720 hourly rates, 6 decimals; null in warm-up or when the deviation is ~0.' }),
  },
  premium: { from: 'premium', schema: z.string().nullable().optional().meta({ description: 'normalized=true: (perp - spot) / spot, 8 decimals.' }) },
});

export const FUNDING_PAGE_SCHEMA = pageSchema({ symbol: z.string(), exchange: z.string() }, FUNDING_RATE.schema);

/** CSV columns and cells: the normalized ones only when asked for. */
export const fundingCsvColumns = (q: FundingRequest) => (q.normalized ? FUNDING_RATE.names : FUNDING_RATE.names.slice(0, 2));
export const fundingCsvCells = (q: FundingRequest) => (r: FundingRate) => FUNDING_RATE.csvCells(r).slice(0, q.normalized ? 4 : 2);

export const FUNDING_REPRESENTATION: Representation<FundingPlan, Page<FundingRate>, FundingRate> = {
  json: (q, p) => pageJsonBytes({ symbol: q.symbol, exchange: q.exchange, count: p.count, next_start: p.nextStart }, FUNDING_RATE.jsonRows(p.data)),
  table: (q, p: Page<FundingRate>) => ({
    columns: fundingCsvColumns(q),
    rows: p.data,
    cells: fundingCsvCells(q),
    // rate and premium 8; rate_normalized, a z-score, 6.
    scaleOf: (column) => (column === 'rate_normalized' ? 6 : 8),
    nextStart: p.nextStart,
  }),
};
