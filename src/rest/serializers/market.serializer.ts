/** GET /v1/markets: the domain's market summaries as they are. */
import { z } from 'zod';
import type { MarketSummary } from '../../domain/market';
import { timestamp } from './shape';

export const MARKETS_SCHEMA = z.object({
  markets: z.array(
    z.object({
      symbol: z.string(),
      exchange: z.string(),
      coverage: z.array(z.object({ timeframe: z.string(), first: timestamp.nullable(), last: timestamp.nullable() })),
      funding_interval_hours: z
        .number()
        .int()
        .optional()
        .meta({ description: "A perpetual's current funding interval in hours (its newest settlement's): 1, or 4 or 8 where the venue settles so." }),
    }),
  ),
});

export const marketsBody = (markets: MarketSummary[]) => ({
  markets: markets.map(({ fundingIntervalHours, ...m }) => (fundingIntervalHours === undefined ? m : { ...m, funding_interval_hours: fundingIntervalHours })),
});
