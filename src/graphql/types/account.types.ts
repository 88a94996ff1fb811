/** The GraphQL types of the caller and its keys; the key types implement their domain types (domain/api-keys.ts). */
import { Field, Int, ObjectType } from 'type-graphql';
import type { ApiKeyInfo, KeyRevocation } from '../../domain/api-keys';
import type { Tier } from '../../domain/tiers';

@ObjectType('Quota', { description: 'Quota of the calling key after this request (what the rate-limit headers say).' })
export class QuotaType {
  @Field(() => Int, { nullable: true, description: 'Daily requests allowed; null when unlimited (scale).' })
  dayLimit!: number | null;

  @Field(() => Int, { nullable: true })
  dayRemaining!: number | null;

  @Field(() => Int, { nullable: true, description: 'Requests allowed per minute; null when unlimited.' })
  minuteLimit!: number | null;

  @Field(() => Int, { nullable: true })
  minuteRemaining!: number | null;

  @Field({ description: 'Next per-minute reset, YYYY-MM-DDTHH:MM:SS+00:00.' })
  minuteReset!: string;

  @Field({ description: 'Next daily reset (midnight UTC).' })
  dayReset!: string;
}

@ObjectType('PlanLimits', { description: 'What the calling key may do.' })
export class PlanLimitsType {
  @Field(() => [String])
  timeframes!: string[];

  @Field(() => Int, { nullable: true, description: 'Longest end - start window in days; null when unrestricted.' })
  historyDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Symbols per multi-asset request; null when unlimited.' })
  multiAssetSymbols!: number | null;

  @Field(() => Int, { nullable: true, description: 'Subscriptions the key may hold open at once (per server instance); null when unlimited.' })
  subscriptions!: number | null;
}

@ObjectType('Account', { description: 'The caller: the API key used for this request.' })
export class AccountType {
  @Field()
  userId!: string;

  @Field()
  tier!: string;

  @Field()
  keyHint!: string;

  @Field(() => QuotaType)
  quota!: QuotaType;

  @Field(() => PlanLimitsType)
  limits!: PlanLimitsType;
}

@ObjectType('ApiKey')
export class ApiKeyType implements ApiKeyInfo {
  @Field({ description: 'SHA-256 hex of the key; identifies it for revocation.' })
  keyHash!: string;

  @Field()
  keyHint!: string;

  @Field()
  userId!: string;

  @Field(() => String)
  tier!: Tier;

  @Field(() => String, { nullable: true })
  label!: string | null;

  @Field()
  createdAt!: string;

  @Field(() => String, { description: 'active or revoked' })
  status!: ApiKeyInfo['status'];

  @Field(() => String, { nullable: true })
  revokedAt!: string | null;
}

@ObjectType('RevokedKey')
export class RevokedKeyType implements KeyRevocation {
  @Field()
  keyHash!: string;

  @Field(() => String)
  status!: KeyRevocation['status'];

  @Field()
  revokedAt!: string;
}
