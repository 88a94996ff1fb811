import type { Tier } from '../../domain/tiers';

export type { QuotaStatus } from '../../domain/quota';

/** The authenticated caller, passed explicitly to every domain method. */
export interface Principal {
  keyHash: string;
  keyHint: string;
  userId: string;
  tier: Tier;
}
