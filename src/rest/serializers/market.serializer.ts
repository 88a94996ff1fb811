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
    }),
  ),
});

export const marketsBody = (markets: MarketSummary[]) => ({ markets });
