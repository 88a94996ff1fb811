/**
 * The GraphQL types of a perpetual's context (GET /v1/derivatives): rows that implement the
 * domain type, the same page as columns, and the page.
 */
import { Field, Int, ObjectType } from 'type-graphql';
import type { Derivatives as DomainDerivatives } from '../../domain/market';

@ObjectType('DerivativesRow', {
  description: "A closed period of a perpetual's context (GET /v1/derivatives): open interest as open/high/low/close, the rest the period's last value.",
})
export class DerivativesRowType implements DomainDerivatives {
  @Field({ description: 'Open time, YYYY-MM-DDTHH:MM:SS+00:00.' })
  time!: string;
  // BACKFILL_GAPS are declared non-null here; schema.ts takes that off where a served exchange
  // backfills its context (allowBackfillGaps).
  @Field(() => String, { description: 'Open interest at the end of the period, base units, 6 decimals.' })
  openInterest!: string | null;
  @Field(() => String)
  openInterestOpen!: string | null;
  @Field(() => String)
  openInterestHigh!: string | null;
  @Field(() => String)
  openInterestLow!: string | null;
  @Field(() => String, { description: 'openInterest x markPrice, 6 decimals.' })
  openInterestValue!: string | null;
  @Field()
  markPrice!: string;
  @Field()
  oraclePrice!: string;
  @Field(() => String, { nullable: true, description: "Null while the venue's book is empty." })
  midPrice!: string | null;
  @Field(() => String, { description: "The venue's predicted hourly funding rate, 8 decimals." })
  predictedFundingRate!: string | null;
  @Field(() => String, { nullable: true, description: "The venue's own premium, 8 decimals (not funding's perp/spot premium)." })
  venuePremium!: string | null;
}

@ObjectType('DerivativesColumns', { description: 'The same rows column by column: index i of every list is one period.' })
export class DerivativesColumnsType {
  @Field(() => [String])
  time!: string[];
  // BACKFILL_GAPS: items non-null unless a served exchange backfills its context (schema.ts).
  @Field(() => [String])
  openInterest!: Array<string | null>;
  @Field(() => [String])
  openInterestOpen!: Array<string | null>;
  @Field(() => [String])
  openInterestHigh!: Array<string | null>;
  @Field(() => [String])
  openInterestLow!: Array<string | null>;
  @Field(() => [String])
  openInterestValue!: Array<string | null>;
  @Field(() => [String])
  markPrice!: string[];
  @Field(() => [String])
  oraclePrice!: string[];
  @Field(() => [String], { nullable: 'items' })
  midPrice!: Array<string | null>;
  @Field(() => [String])
  predictedFundingRate!: Array<string | null>;
  @Field(() => [String], { nullable: 'items' })
  venuePremium!: Array<string | null>;
}

@ObjectType('DerivativesPage')
export class DerivativesPageType {
  @Field(() => Int)
  count!: number;

  @Field(() => String, { nullable: true, description: 'Pass as start to fetch the next page; null when none is left.' })
  nextStart!: string | null;

  @Field(() => [DerivativesRowType])
  data!: DerivativesRowType[];

  @Field(() => DerivativesColumnsType, { description: 'The page as columns.' })
  columns!: DerivativesColumnsType;
}
