/**
 * The GraphQL subscriptions: a market's closed candles and context periods, settled funding and quality changes.
 * The WebSocket edge (graphql/subscriptions.ts) admits the key, counts the request and opens
 * the subscription through SubscriptionsService before execution, so every refusal is a
 * graphql-ws `error` message; here the opened stream is handed to graphql-js and each event
 * resolves to itself (already the query fields' shape and strings).
 */
import { Args, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import type { Candle, Derivatives, FundingRate } from '../../domain/market';
import type { QualityRecord } from '../../domain/quality';
import { argsType } from '../args';
import type { GqlContext } from '../context';
import { DerivativesRowType } from '../types/derivatives.types';
import { CandleType, FundingRowType, QualityRecordType } from '../types/market.types';

type Args = Record<string, unknown>;

/** The stream the edge opened for this operation. */
function opened({ context }: SubscribeResolverData<unknown, unknown, GqlContext>): AsyncIterable<unknown> {
  if (!context.events) throw new Error('subscription without an opened stream (only the WebSocket edge opens them)');
  return context.events;
}

@Resolver()
export class SubscriptionResolver {
  @Subscription(() => CandleType, { subscribe: opened, description: 'Each closed candle of the market at the timeframe (rolled-up timeframes when their bucket completes).' })
  candleClosed(@Root() candle: Candle, @Args(() => argsType('candleClosed')) _args: Args): Candle {
    return candle;
  }

  @Subscription(() => DerivativesRowType, {
    subscribe: opened,
    description: "Each closed period of the perpetual market's context at the timeframe (coarser ones when their bucket completes).",
  })
  derivativesClosed(@Root() row: Derivatives, @Args(() => argsType('derivativesClosed')) _args: Args): Derivatives {
    return row;
  }

  @Subscription(() => FundingRowType, { subscribe: opened, description: 'Each funding rate stored for the perpetual market (normalized: with rateNormalized and premium).' })
  fundingSettled(@Root() rate: FundingRate, @Args(() => argsType('fundingSettled')) _args: Args): FundingRate {
    return rate;
  }

  @Subscription(() => [QualityRecordType], { subscribe: opened, description: "The market's quality records (your plan's timeframes) whenever a score changed." })
  qualityChanged(@Root() records: QualityRecord[], @Args(() => argsType('qualityChanged')) _args: Args): QualityRecord[] {
    return records;
  }
}
