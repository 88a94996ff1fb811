/**
 * Market events, what GraphQL subscriptions deliver: every stored closed candle (ingestion, the
 * demo feed, imports, their rollups), closed context period, funding rate and quality change,
 * published once after its transaction committed, so a subscriber never hears of data a query
 * cannot read yet. Payloads are read back from storage and rendered as the query fields render
 * them. The bus: Redis pub/sub with Redis configured (every instance and `mds` process), else in process.
 */
import type { Candle, Derivatives, FundingRate } from '../../domain/market';
import type { QualityRecord } from '../../domain/quality';
import type { CandleTimeframe } from '../../domain/timeframe';

export type MarketEvent = {
  /**
   * The primary's WAL position after the commit (PostgreSQL; absent on PGlite): a process that
   * hears the event reads from the primary until its read replicas have replayed this far, so a
   * subscriber's next query sees what it heard of (read-your-writes).
   */
  lsn?: string;
} & (
  | { type: 'candle'; exchange: string; symbol: string; timeframe: CandleTimeframe; candles: Candle[] }
  | { type: 'derivatives'; exchange: string; symbol: string; timeframe: CandleTimeframe; rows: Derivatives[] }
  | {
      type: 'funding';
      exchange: string;
      symbol: string;
      /** Each settled rate plain and normalized (rateNormalized and premium), as the two reads render it. */
      rates: Array<{ plain: FundingRate; normalized: FundingRate }>;
    }
  | { type: 'quality'; exchange: string; symbol: string; records: QualityRecord[] }
);

/** The topic a subscriber listens to: one market's candles or context of one timeframe, its funding, or its quality. */
export function topicOf(e: Pick<MarketEvent, 'type' | 'exchange' | 'symbol'> & { timeframe?: string }): string {
  return e.type === 'candle' || e.type === 'derivatives' ? `${e.type}|${e.exchange}|${e.symbol}|${e.timeframe}` : `${e.type}|${e.exchange}|${e.symbol}`;
}

export interface EventBus {
  readonly kind: 'memory' | 'redis';
  /** Deliver to every listener of every process on the bus (this one included). */
  publish(event: MarketEvent): Promise<void>;
  /** Hear every event published on the bus; returns the unsubscriber. */
  listen(handler: (event: MarketEvent) => void): () => void;
  close(): Promise<void>;
}

/** In process: the embedded default, one process. */
export class MemoryEventBus implements EventBus {
  readonly kind = 'memory';
  private readonly handlers = new Set<(event: MarketEvent) => void>();

  async publish(event: MarketEvent): Promise<void> {
    // Delivered after the publisher's turn, as over Redis: a listener never runs inside a write.
    const handlers = [...this.handlers];
    queueMicrotask(() => {
      for (const h of handlers) h(event);
    });
  }

  listen(handler: (event: MarketEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
