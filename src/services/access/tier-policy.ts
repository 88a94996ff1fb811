/**
 * Tier rules as one policy: which timeframes, history window and multi-asset symbol count a
 * plan allows, refusing with 403 TIER_LIMIT_EXCEEDED naming the plan that would allow it.
 * The numbers are the table in domain/tier-limits.ts (defaults + TIER_LIMITS overrides).
 */
import { AppError } from '../../domain/errors';
import { DAY_MS } from '../../domain/time';
import type { CandleTimeframe } from '../../domain/timeframe';
import type { TierLimits } from '../../domain/tier-limits';
import { TIERS, type Tier } from '../../domain/tiers';

export class TierPolicy {
  constructor(
    readonly limits: Record<Tier, TierLimits>,
    private readonly upgradeUrl: string,
  ) {}

  of(tier: Tier): TierLimits {
    return this.limits[tier];
  }

  private refuse(tier: Tier, what: string, allowed: (l: TierLimits) => boolean): never {
    const needed = TIERS.find((t) => allowed(this.limits[t]));
    const plan = needed ? `the ${needed} plan` : 'a custom plan';
    throw new AppError('TIER_LIMIT_EXCEEDED', `${what} needs ${plan}; your plan is ${tier}`, {
      upgrade_url: this.upgradeUrl,
    });
  }

  requireTimeframe(tier: Tier, tf: CandleTimeframe): void {
    const ok = (l: TierLimits) => l.timeframes.includes(tf);
    if (!ok(this.limits[tier])) this.refuse(tier, `timeframe ${tf}`, ok);
  }

  /** The window end - start; exactly the plan's number of days is allowed. */
  requireWindow(tier: Tier, startMs: number, endMs: number): void {
    const days = (endMs - startMs) / DAY_MS;
    const ok = (l: TierLimits) => l.historyDays === null || days <= l.historyDays;
    if (!ok(this.limits[tier])) {
      const max = this.limits[tier].historyDays;
      this.refuse(tier, `a window of ${Math.ceil(days)} days (your plan allows ${max})`, ok);
    }
  }

  /** Room for one more subscription beside the `open` ones the key holds. */
  requireSubscriptionRoom(tier: Tier, open: number): void {
    const ok = (l: TierLimits) => l.subscriptions === null || open < l.subscriptions;
    if (!ok(this.limits[tier])) this.refuse(tier, `more than ${this.limits[tier].subscriptions} subscriptions at once`, ok);
  }

  requireSymbolCount(tier: Tier, n: number): void {
    const ok = (l: TierLimits) => l.multiAssetSymbols === null || n <= l.multiAssetSymbols;
    if (!ok(this.limits[tier])) {
      this.refuse(tier, `${n} symbols per request (your plan allows ${this.limits[tier].multiAssetSymbols})`, ok);
    }
  }
}
