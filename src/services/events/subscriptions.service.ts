/**
 * GraphQL subscriptions as domain methods: validate a subscription with its endpoint (400s), check
 * the caller's plan (403: the timeframe, and the number of subscriptions the key holds), then
 * hand back the market's events as they come. Transport-free: the WebSocket edge admits the key
 * and counts the request first (graphql/subscriptions.ts).
 */
import type { Candle, Derivatives, FundingRate, MarketRef } from '../../domain/market';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import type { QualityRecord } from '../../domain/quality';
import type { Principal } from '../access/principal';
import type { EventHub } from './event-hub';
import { topicOf } from './market-events';
import type { TierPolicy } from '../access/tier-policy';

export interface SubscriptionsDeps {
  endpoints: Pick<MarketEndpoints, 'candleEvents' | 'derivativesEvents' | 'fundingEvents' | 'qualityEvents'>;
  tiers: TierPolicy;
  hub: EventHub;
  clock: () => number;
}

export class SubscriptionsService {
  /** Subscriptions open per key in this process. */
  private readonly open = new Map<string, number>();

  constructor(private readonly deps: SubscriptionsDeps) {}

  /** Subscriptions the key holds open here. */
  openOf(keyHash: string): number {
    return this.open.get(keyHash) ?? 0;
  }

  /** `candleClosed`: each closed candle of the market at the timeframe, rolled-up ones included. */
  candleClosed(caller: Principal, raw: RawParams): AsyncIterableIterator<Candle> {
    const q = this.deps.endpoints.candleEvents.parse(raw, this.deps.clock());
    this.deps.tiers.requireTimeframe(caller.tier, q.timeframe);
    return this.iterate(caller, topicOf({ type: 'candle', ...q }), (e) => (e.type === 'candle' ? e.candles : []));
  }

  /** `derivativesClosed`: each closed context period of the perpetual market at the timeframe. */
  derivativesClosed(caller: Principal, raw: RawParams): AsyncIterableIterator<Derivatives> {
    const q = this.deps.endpoints.derivativesEvents.parse(raw, this.deps.clock());
    this.deps.tiers.requireTimeframe(caller.tier, q.timeframe);
    return this.iterate(caller, topicOf({ type: 'derivatives', ...q }), (e) => (e.type === 'derivatives' ? e.rows : []));
  }

  /** `fundingSettled`: each funding rate stored for the perpetual market, plain or normalized. */
  fundingSettled(caller: Principal, raw: RawParams): AsyncIterableIterator<FundingRate> {
    const q = this.deps.endpoints.fundingEvents.parse(raw, this.deps.clock());
    return this.iterate(caller, topicOf({ type: 'funding', ...q }), (e) =>
      e.type === 'funding' ? e.rates.map((r) => (q.normalized ? r.normalized : r.plain)) : [],
    );
  }

  /** `qualityChanged`: the market's records whenever a score changed, only the plan's timeframes. */
  qualityChanged(caller: Principal, raw: RawParams): AsyncIterableIterator<QualityRecord[]> {
    const q: MarketRef = this.deps.endpoints.qualityEvents.parse(raw, this.deps.clock());
    const allowed = new Set<string>(this.deps.tiers.of(caller.tier).timeframes);
    return this.iterate(caller, topicOf({ type: 'quality', ...q }), (e) => {
      if (e.type !== 'quality') return [];
      const visible = e.records.filter((r) => allowed.has(r.timeframe));
      return visible.length ? [visible] : [];
    });
  }

  /** The topic's values for the caller, counted against the key's cap until the iterator ends. */
  private iterate<T>(caller: Principal, topic: string, items: Parameters<EventHub['iterate']>[1]): AsyncIterableIterator<T> {
    const held = this.openOf(caller.keyHash);
    this.deps.tiers.requireSubscriptionRoom(caller.tier, held);
    this.open.set(caller.keyHash, held + 1);
    return this.deps.hub.iterate(topic, items as (e: Parameters<typeof items>[0]) => readonly T[], () => {
      const n = this.openOf(caller.keyHash) - 1;
      if (n > 0) this.open.set(caller.keyHash, n);
      else this.open.delete(caller.keyHash);
    });
  }
}
