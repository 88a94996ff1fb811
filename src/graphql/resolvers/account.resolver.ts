import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { formatTimestamp } from '../../domain/time';
import type { KeysService } from '../../services/keys.service';
import type { TierPolicy } from '../../services/tier-policy';
import type { GqlContext } from '../context';
import { Account, ApiKey, RevokedKey } from '../types/account.types';

@Resolver()
export class AccountResolver {
  constructor(
    private readonly keys: KeysService,
    private readonly tiers: TierPolicy,
  ) {}

  @Query(() => Account, { description: 'The calling key, its plan limits and its quota.' })
  me(@Ctx() { principal, quota }: GqlContext): Account {
    const limits = this.tiers.of(principal.tier);
    return {
      userId: principal.userId,
      tier: principal.tier,
      keyHint: principal.keyHint,
      quota: {
        dayLimit: quota.dayLimit,
        dayRemaining: quota.dayRemaining,
        minuteLimit: quota.minuteLimit,
        minuteRemaining: quota.minuteRemaining,
        minuteReset: formatTimestamp(quota.minuteResetSec * 1000),
        dayReset: formatTimestamp(quota.dayResetSec * 1000),
      },
      limits: {
        timeframes: [...limits.timeframes],
        historyDays: limits.historyDays,
        multiAssetSymbols: limits.multiAssetSymbols,
      },
    };
  }

  @Query(() => [ApiKey], { description: "The keys of the caller's user, oldest first (GET /v1/auth/keys)." })
  async apiKeys(@Ctx() { principal }: GqlContext): Promise<ApiKey[]> {
    const rows = await this.keys.list(principal);
    return rows.map((k) => ({
      keyHash: k.key_hash,
      keyHint: k.key_hint,
      userId: k.user_id,
      tier: k.tier,
      label: k.label,
      createdAt: k.created_at,
      status: k.status,
      revokedAt: k.revoked_at,
    }));
  }

  @Mutation(() => RevokedKey, { description: "Revoke a key of the caller's user (DELETE /v1/auth/keys/{key_hash})." })
  async revokeApiKey(@Arg('keyHash') keyHash: string, @Ctx() { principal }: GqlContext): Promise<RevokedKey> {
    const r = await this.keys.revoke(principal, keyHash);
    return { keyHash: r.key_hash, status: r.status, revokedAt: r.revoked_at };
  }
}
