/**
 * The plans as one table: quotas, allowed timeframes, history window, multi-asset symbol
 * count and concurrent GraphQL subscriptions per tier. Defaults are the spec's; TIER_LIMITS (JSON)
 * overrides any field, e.g. `{"free":{"minuteRequests":1000}}`; `null` means unlimited for every
 * field but `timeframes` (a list).
 */
import { z } from 'zod';
import { CANDLE_TIMEFRAMES, type CandleTimeframe } from './timeframe';
import { TIERS, type Tier } from './tiers';

export interface TierLimits {
  dailyRequests: number | null;
  minuteRequests: number | null;
  multiAssetSymbols: number | null;
  timeframes: readonly CandleTimeframe[];
  historyDays: number | null;
  /** GraphQL subscriptions one key may hold open at once (per server instance). */
  subscriptions: number | null;
}

export const DEFAULT_TIER_LIMITS: Record<Tier, TierLimits> = {
  free: { dailyRequests: 1_000, minuteRequests: 10, multiAssetSymbols: 5, timeframes: ['1h', '4h', '1d'], historyDays: 365, subscriptions: 5 },
  pro: { dailyRequests: 50_000, minuteRequests: 100, multiAssetSymbols: 30, timeframes: CANDLE_TIMEFRAMES, historyDays: null, subscriptions: 50 },
  scale: { dailyRequests: null, minuteRequests: 500, multiAssetSymbols: null, timeframes: CANDLE_TIMEFRAMES, historyDays: null, subscriptions: 500 },
};

const count = z.number().int().positive();
const override = z
  .object({
    dailyRequests: count.nullable(),
    minuteRequests: count.nullable(),
    multiAssetSymbols: count.nullable(),
    timeframes: z.array(z.enum(CANDLE_TIMEFRAMES)).min(1),
    historyDays: count.nullable(),
    subscriptions: count.nullable(),
  })
  .partial()
  .strict();
const overrides = z.object({ free: override, pro: override, scale: override }).partial().strict();

/** Merge a TIER_LIMITS JSON text over the defaults; throws a message describing the problem. */
export function resolveTierLimits(json: string | undefined): Record<Tier, TierLimits> {
  if (!json) return DEFAULT_TIER_LIMITS;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('must be JSON');
  }
  const parsed = overrides.safeParse(value);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  const out = { ...DEFAULT_TIER_LIMITS };
  for (const t of TIERS) out[t] = { ...DEFAULT_TIER_LIMITS[t], ...parsed.data[t] };
  return out;
}
