/** The caller (`me`), its keys (`apiKeys`) and revocation (`revokeApiKey`), through the services REST uses. */
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { ApiKeyInfo, KeyRevocation } from '../../domain/api-keys';
import { formatTimestamp } from '../../domain/time';
import type { KeysService } from '../../services/access/keys.service';
import type { TierPolicy } from '../../services/access/tier-policy';
import type { GqlContext } from '../context';
import { AccountType, ApiKeyType, RevokedKeyType } from '../types/account.types';

@Resolver()
export class AccountResolver {
  constructor(
    private readonly keys: KeysService,
    private readonly tiers: TierPolicy,
  ) {}

  @Query(() => AccountType, { description: 'The calling key, its plan limits and its quota.' })
  me(@Ctx() { principal, quota }: GqlContext): AccountType {
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
        subscriptions: limits.subscriptions,
      },
    };
  }

  @Query(() => [ApiKeyType], { description: "The keys of the caller's user, oldest first (GET /v1/auth/keys)." })
  apiKeys(@Ctx() { principal }: GqlContext): Promise<ApiKeyInfo[]> {
    return this.keys.list(principal);
  }

  @Mutation(() => RevokedKeyType, { description: "Revoke a key of the caller's user (DELETE /v1/auth/keys/{key_hash})." })
  revokeApiKey(@Arg('keyHash') keyHash: string, @Ctx() { principal }: GqlContext): Promise<KeyRevocation> {
    return this.keys.revoke(principal, keyHash);
  }
}
