/**
 * Publishing what was stored, after it committed: the writers call in with what changed, the
 * publisher reads it back through the repositories the queries use (so an event carries the
 * very strings a query returns) and puts it on the bus with the commit's WAL position (read
 * replicas: read-your-writes). A failure to publish is logged and never fails the write: the
 * data is stored, subscribers miss that event.
 */
import type { Store } from '../../db/store';
import type { Candle, MarketRef } from '../../domain/market';
import { candleOf } from '../../domain/candle-text';
import type { QualityRecord } from '../../domain/quality';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, bucketStart, lastClosedOpen, type CandleTimeframe } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import { InFlight } from '../runtime/in-flight';
import type { EventBus, MarketEvent } from './market-events';

/**
 * Newest candles (or rates) one write publishes per timeframe: a live close is one, an import
 * of years is not a year of events but its newest stretch.
 */
export const MAX_EVENT_ROWS = 1_000;

export interface EventPublisherDeps {
  bus: EventBus;
  store: Pick<Store, 'series' | 'candles' | 'funding' | 'derivatives' | 'walPosition' | 'readAfter'>;
  exchanges: Exchanges;
  clock: () => number;
  onError: (err: unknown) => void;
  /** Told of every event put on the bus (metrics). */
  onPublished?: (event: MarketEvent) => void;
}

export class EventPublisher {
  /** Publications under way: the writers start them without waiting (`void`), close waits for them. */
  private readonly inFlight = new InFlight();

  constructor(private readonly deps: EventPublisherDeps) {}

  /**
   * Wait for the publications under way, those started meanwhile too: before the database and
   * the bus close, or the last write's events would fail on a closed pool instead of going out.
   */
  drain(): Promise<void> {
    return this.inFlight.drain();
  }

  /**
   * Candles of one series stored at `timeframe` with open times in [firstMs, lastMs], and the
   * coarser candles whose buckets they completed (the rollups that commit with them). Only
   * closed candles are published, as only closed candles are served.
   */
  async candlesStored(seriesId: number, timeframe: CandleTimeframe, firstMs: number, lastMs: number): Promise<void> {
    await this.periodsStored(seriesId, timeframe, firstMs, lastMs, async (market, tf, from, to, lsn) => {
      // With the trade flow, so a subscription may select it as a query does.
      const rows = (await this.deps.store.candles.pages([seriesId], tf, new Date(from), new Date(to), MAX_EVENT_ROWS, true)).get(seriesId) ?? [];
      const candles: Candle[] = rows.map((r) => candleOf(r, true));
      if (candles.length) await this.put({ type: 'candle', exchange: market.exchange, symbol: market.symbol, timeframe: tf, candles }, lsn);
    });
  }

  /** Context minutes of a perpetual series stored in [firstMs, lastMs], and the coarser periods they completed. */
  async derivativesStored(seriesId: number, firstMs: number, lastMs: number): Promise<void> {
    await this.periodsStored(seriesId, '1m', firstMs, lastMs, async (market, tf, from, to, lsn) => {
      const rows = (await this.deps.store.derivatives.pages([seriesId], tf, new Date(from), new Date(to), MAX_EVENT_ROWS)).get(seriesId) ?? [];
      if (rows.length) await this.put({ type: 'derivatives', exchange: market.exchange, symbol: market.symbol, timeframe: tf, rows }, lsn);
    });
  }

  /**
   * For periods of one series stored at `timeframe` with open times in [firstMs, lastMs], and the
   * coarser ones whose buckets they completed (the rollups that commit with them): `publish` the
   * closed ones of each timeframe, at most MAX_EVENT_ROWS, the newest.
   */
  private async periodsStored(
    seriesId: number,
    timeframe: CandleTimeframe,
    firstMs: number,
    lastMs: number,
    publish: (market: MarketRef, tf: CandleTimeframe, from: number, to: number, lsn: string | null) => Promise<void>,
  ): Promise<void> {
    await this.safely(async () => {
      const [market, lsn] = await Promise.all([this.deps.store.series.get(seriesId), this.deps.store.walPosition()]);
      if (!market) return;
      const now = this.deps.clock();
      const end = lastMs + TIMEFRAME_MS[timeframe];
      for (const tf of CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(timeframe))) {
        // A coarser bucket is new only when a bucket boundary lies in (first, end].
        if (tf !== timeframe && bucketStart(end, tf) <= firstMs) continue;
        const to = Math.min(tf === timeframe ? lastMs : bucketStart(end, tf) - TIMEFRAME_MS[tf], lastClosedOpen(now, tf));
        const from = Math.max(bucketStart(firstMs, tf), to - (MAX_EVENT_ROWS - 1) * TIMEFRAME_MS[tf]);
        if (from <= to) await publish(market, tf, from, to, lsn);
      }
    });
  }

  /** Funding rates of a perpetual series stored with times in [firstMs, lastMs], plain and normalized. */
  async fundingStored(seriesId: number, firstMs: number, lastMs: number): Promise<void> {
    await this.safely(async () => {
      const [market, lsn] = await Promise.all([this.deps.store.series.get(seriesId), this.deps.store.walPosition()]);
      if (!market || !this.deps.exchanges.isPerpetual(market.exchange)) return;
      const spotId = (await this.deps.store.series.idOf({ exchange: this.deps.exchanges.spot, symbol: market.symbol })) ?? null;
      const from = new Date(Math.max(firstMs, lastMs - (MAX_EVENT_ROWS - 1) * TIMEFRAME_MS['1h']));
      const to = new Date(lastMs);
      const plain = (await this.deps.store.funding.pages([seriesId], from, to, MAX_EVENT_ROWS)).get(seriesId) ?? [];
      const normalized = (await this.deps.store.funding.normalizedPages([{ id: seriesId, spot: spotId, maxHours: this.deps.exchanges.fundingMaxHours(market.exchange) }], from, to, MAX_EVENT_ROWS)).get(seriesId) ?? [];
      const byTime = new Map(normalized.map((r) => [r.time, r]));
      const rates = plain.flatMap((p) => {
        const n = byTime.get(p.time);
        return n ? [{ plain: p, normalized: n }] : [];
      });
      if (rates.length) await this.put({ type: 'funding', exchange: market.exchange, symbol: market.symbol, rates }, lsn);
    });
  }

  /** A market's quality records after a score changed. */
  async qualityChanged(seriesId: number, records: QualityRecord[]): Promise<void> {
    await this.safely(async () => {
      const [market, lsn] = await Promise.all([this.deps.store.series.get(seriesId), this.deps.store.walPosition()]);
      if (market && records.length) await this.put({ type: 'quality', exchange: market.exchange, symbol: market.symbol, records }, lsn);
    });
  }

  /** Publish an event as it is (tests, tools). */
  publish(event: MarketEvent): Promise<void> {
    return this.safely(() => this.put(event, event.lsn ?? null));
  }

  /** Put an event on the bus with its commit position; this process reads from the primary until its replicas replay it. */
  private async put(event: MarketEvent, lsn: string | null): Promise<void> {
    if (lsn !== null) {
      event.lsn = lsn;
      this.deps.store.readAfter(lsn);
    }
    await this.deps.bus.publish(event);
    this.deps.onPublished?.(event);
  }

  private safely(fn: () => Promise<void>): Promise<void> {
    return this.inFlight.track(
      (async () => {
        try {
          await fn();
        } catch (err) {
          this.deps.onError(err);
        }
      })(),
    );
  }
}
