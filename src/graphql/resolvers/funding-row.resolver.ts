/** A funding row's interval as the number GraphQL's Int is (the domain row carries the served integer string). */
import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { FundingRate } from '../../domain/market';
import { FundingRowType } from '../types/market.types';

@Resolver(() => FundingRowType)
export class FundingRowResolver {
  @FieldResolver(() => Int)
  intervalHours(@Root() row: FundingRate): number {
    return Number(row.intervalHours);
  }
}
