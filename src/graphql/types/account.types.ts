import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Quota of the calling key after this request (what the rate-limit headers say).' })
export class Quota {
  @Field(() => Int, { nullable: true, description: 'Daily requests allowed; null when unlimited (scale).' })
  dayLimit!: number | null;

  @Field(() => Int, { nullable: true })
  dayRemaining!: number | null;

  @Field(() => Int)
  minuteLimit!: number;

  @Field(() => Int)
  minuteRemaining!: number;

  @Field({ description: 'Next per-minute reset, YYYY-MM-DDTHH:MM:SS+00:00.' })
  minuteReset!: string;

  @Field({ description: 'Next daily reset (midnight UTC).' })
  dayReset!: string;
}

@ObjectType({ description: 'What the calling key may do.' })
export class PlanLimits {
  @Field(() => [String])
  timeframes!: string[];

  @Field(() => Int, { nullable: true, description: 'Longest end - start window in days; null when unrestricted.' })
  historyDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Symbols per multi-asset request; null when unlimited.' })
  multiAssetSymbols!: number | null;
}

@ObjectType({ description: 'The caller: the API key used for this request.' })
export class Account {
  @Field()
  userId!: string;

  @Field()
  tier!: string;

  @Field()
  keyHint!: string;

  @Field(() => Quota)
  quota!: Quota;

  @Field(() => PlanLimits)
  limits!: PlanLimits;
}

@ObjectType()
export class ApiKey {
  @Field({ description: 'SHA-256 hex of the key; identifies it for revocation.' })
  keyHash!: string;

  @Field()
  keyHint!: string;

  @Field()
  userId!: string;

  @Field()
  tier!: string;

  @Field(() => String, { nullable: true })
  label!: string | null;

  @Field()
  createdAt!: string;

  @Field({ description: 'active or revoked' })
  status!: string;

  @Field(() => String, { nullable: true })
  revokedAt!: string | null;
}

@ObjectType()
export class RevokedKey {
  @Field()
  keyHash!: string;

  @Field()
  status!: string;

  @Field()
  revokedAt!: string;
}
