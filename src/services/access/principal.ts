import type { Tier } from '../../domain/tiers';

/** The authenticated caller, passed explicitly to every domain method. */
export interface Principal {
  keyHash: string;
  keyHint: string;
  userId: string;
  tier: Tier;
}

/** The caller's quota after this request: what the rate-limit headers report. */
export interface QuotaStatus {
  tier: Tier;
  dayLimit: number | null;
  dayRemaining: number | null;
  minuteLimit: number;
  minuteRemaining: number;
  /** Unix seconds of the next minute boundary. */
  minuteResetSec: number;
  /** Unix seconds of the next midnight UTC. */
  dayResetSec: number;
  nowMs: number;
}
