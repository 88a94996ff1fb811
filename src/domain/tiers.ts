/** The plans' names. Their limits are the table in tier-limits.ts, applied by services/tier-policy.ts. */
export const TIERS = ['free', 'pro', 'scale'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(v: unknown): v is Tier {
  return typeof v === 'string' && (TIERS as readonly string[]).includes(v);
}
