/**
 * Funding rates over REST: snake_case fields; rate_normalized and premium only on normalized
 * reads; the interval and the hourly rate where `fields` asks for them, in its order.
 */
import { z } from 'zod';
import type { FundingRate, FundingRequest, FundingRowField, Page } from '../../domain/market';
import type { FundingPlan } from '../../services/reads/funding.service';
import type { Representation } from '../data-route';
import { decimal, pageJsonBytes, pageSchema, restShape, timestamp, type RestShape, type ShapeFields } from './shape';

const ROW: ShapeFields<FundingRate> = {
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
};

/** What `fields` appends. */
const APPENDED: Record<FundingRowField, ShapeFields<FundingRate>[string]> = {
  interval_hours: {
    from: 'intervalHours',
    schema: z.string().optional().meta({ description: 'fields=interval_hours: hours the settlement covers (integer digits): 1 hourly, 4 or 8 where the venue settles so.' }),
  },
  rate_hourly: { from: 'rateHourly', schema: z.string().optional().meta({ description: 'fields=rate_hourly: rate / interval_hours, 8 decimals.' }) },
};

export const FUNDING_RATE = restShape<FundingRate>({ ...ROW, ...APPENDED });

const shapes = new Map<string, RestShape<FundingRate>>();

/** The row shape of a request: the base fields, then those `fields` asks for in its order. */
function shapeOf(q: FundingRequest): RestShape<FundingRate> {
  const key = q.fields?.join(',') ?? '';
  let shape = shapes.get(key);
  if (!shape) {
    shape = restShape<FundingRate>({ ...ROW, ...Object.fromEntries((q.fields ?? []).map((f) => [f, APPENDED[f]])) });
    shapes.set(key, shape);
  }
  return shape;
}

export const FUNDING_PAGE_SCHEMA = pageSchema({ symbol: z.string(), exchange: z.string() }, FUNDING_RATE.schema);

/** CSV columns and cells: the normalized ones only when asked for, then the asked fields. */
export const fundingCsvColumns = (q: FundingRequest) => [...(q.normalized ? FUNDING_RATE.names.slice(0, 4) : FUNDING_RATE.names.slice(0, 2)), ...(q.fields ?? [])];
export const fundingCsvCells = (q: FundingRequest) => {
  const cells = shapeOf(q).csvCells;
  const keep = (row: Array<string | null | undefined>) => (q.normalized ? row : [row[0], row[1], ...row.slice(4)]);
  return (r: FundingRate) => keep(cells(r));
};

export const FUNDING_REPRESENTATION: Representation<FundingPlan, Page<FundingRate>, FundingRate> = {
  json: (q, p) => pageJsonBytes({ symbol: q.symbol, exchange: q.exchange, count: p.count, next_start: p.nextStart }, shapeOf(q).jsonRows(p.data)),
  table: (q, p: Page<FundingRate>) => ({
    columns: fundingCsvColumns(q),
    rows: p.data,
    cells: fundingCsvCells(q),
    // rate, premium and rate_hourly 8; rate_normalized, a z-score, 6; interval_hours an integer.
    scaleOf: (column) => (column === 'rate_normalized' ? 6 : 8),
    integer: (column) => column === 'interval_hours',
    nextStart: p.nextStart,
  }),
};
