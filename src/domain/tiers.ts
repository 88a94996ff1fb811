/** The plans. Limits live in the tier policy (access issue); here only the names. */
export const TIERS = ['free', 'pro', 'scale'] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(v: unknown): v is Tier {
  return typeof v === 'string' && (TIERS as readonly string[]).includes(v);
}
