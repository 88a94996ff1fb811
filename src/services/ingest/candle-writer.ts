/**
 * The one write path of live data (ingested batches, repairs, the demo feed): under the
 * symbol's lock, one transaction upserts the closed candles as imported and rolls up the
 * coarser buckets they complete, so a crash leaves either both or neither; then the feature
 * tail of every timeframe whose bucket completed, and the funding/premium features when an
 * hour completed or funding changed. Quality stays on its schedule.
 */
import { oneBatch } from '../../db/bulk-upsert';
import type { Store } from '../../db/store';
import type { CandleInput, FundingRateInput } from '../../domain/csv-rows';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, bucketStart, type CandleTimeframe } from '../../domain/timeframe';
import type { FeaturePrecomputeService } from '../feature-precompute.service';

export interface SeriesRef {
  id: number;
  symbol: string;
}

/** What a stored batch changed (for metrics and for what listens to stored data). */
export interface StoredCandles {
  seriesId: number;
  timeframe: CandleTimeframe;
  rows: number;
  first: number;
  last: number;
}

/** Whether a bucket of `tf` ends inside (fromMs, toMs]: a bucket boundary lies there. */
function completesBucket(fromMs: number, toMs: number, tf: CandleTimeframe): boolean {
  return bucketStart(toMs, tf) > fromMs;
}

/** At most `n` holders at once, the others wait in order. */
class Semaphore {
  private waiting: Array<() => void> = [];
  constructor(private free: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/**
 * Batches written at once. Each holds a connection for the symbol lock, one for its
 * transaction and up to two for the feature precompute: two writers leave the rest of a pool of
 * 10 to the API.
 */
const CONCURRENT_WRITES = 2;

export class CandleWriter {
  private readonly slots = new Semaphore(CONCURRENT_WRITES);

  constructor(
    private readonly store: Pick<Store, 'transaction' | 'locks' | 'features'>,
    private readonly features: FeaturePrecomputeService,
    private readonly clock: () => number,
    private readonly onStored: (s: StoredCandles) => void = () => undefined,
  ) {}

  /** Store closed candles of one series and timeframe, then their derivations. */
  async candles(series: SeriesRef, tf: CandleTimeframe, rows: readonly CandleInput[]): Promise<void> {
    if (rows.length === 0) return;
    const sorted = [...rows].sort((a, b) => a.time - b.time);
    const first = sorted[0].time;
    const last = sorted[sorted.length - 1].time;
    const end = last + TIMEFRAME_MS[tf];
    await this.slots.run(() => this.store.locks.withSymbolLock(series.symbol, async () => {
      await this.store.transaction(async (tx) => {
        await tx.candles.upsert(series.id, tf, oneBatch(sorted));
        await tx.candles.rollUp({ seriesId: series.id, from: tf, startMs: first, endMs: last }, this.clock());
      });
      for (const target of CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(tf))) {
        const from = bucketStart(first, target);
        // A write stopped between its commit and its feature tail (kill -9) left the bars after
        // the newest feature row without features: the tail starts there.
        const newest = await this.store.features.latestTime(series.id, target);
        const owed = newest === null ? null : Math.min(from, newest + TIMEFRAME_MS[target]);
        if (target === tf || completesBucket(first, end, target) || (owed !== null && owed < from)) {
          await this.features.technical(series.id, target, owed);
        }
      }
      // The premium reads 1h closes: recomputed when an hour completed (or 1h+ was written).
      if (TIMEFRAME_MS[tf] >= TIMEFRAME_MS['1h'] || completesBucket(first, end, '1h')) await this.features.funding(series.symbol);
    }));
    this.onStored({ seriesId: series.id, timeframe: tf, rows: sorted.length, first, last });
  }

  /** Store funding rates of a perpetual series, then the symbol's funding features. */
  async funding(series: SeriesRef, rows: readonly FundingRateInput[]): Promise<void> {
    if (rows.length === 0) return;
    await this.slots.run(() => this.store.locks.withSymbolLock(series.symbol, async () => {
      await this.store.transaction((tx) => tx.funding.upsert(series.id, oneBatch(rows)));
      await this.features.funding(series.symbol);
    }));
  }
}
