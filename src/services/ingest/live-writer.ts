/**
 * The one write path of live data (ingested batches, repairs, the demo feed): under the symbol's
 * lock, one transaction upserts the closed candles, rolls up the coarser buckets they complete and
 * writes the features of every completed bucket (and the funding features when an hour completed
 * or funding changed), so a crash leaves all of it or none; a perpetual's context minutes with
 * their rollups (nothing derived reads them: no symbol lock). One symbol's writes in order of
 * arrival, a few symbols at once. What was stored is reported after the commit (metrics, events).
 */
import { HOURLY, type SettlementIntervals } from '../../db/funding.repository';
import { oneBatch } from '../../db/bulk-upsert';
import type { Repositories, Store } from '../../db/store';
import type { CandleInput, FundingRateInput } from '../../domain/csv-rows';
import type { DerivativesInput } from '../../domain/derivatives';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, bucketStart, type CandleTimeframe } from '../../domain/timeframe';
import type { FeaturePrecomputeService } from '../derived/feature-precompute.service';

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

/** What a stored funding batch (or batch of context minutes) changed (for what listens to stored data). */
export interface StoredFunding {
  seriesId: number;
  rows: number;
  first: number;
  last: number;
}

export type StoredDerivatives = StoredFunding;

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

/** Batches written at once, each in a transaction on a connection of its own. */
const CONCURRENT_WRITES = 4;

/**
 * Connections of ingestion's own pool on PostgreSQL: one per writer slot and one for the
 * context minutes, plus the leader lock, the followers' reads (what is stored, what to repair)
 * and the status reports.
 */
export const INGEST_POOL_SIZE = CONCURRENT_WRITES + 7;

/** Work run one at a time per key, in order of arrival; different keys run at once. */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const out = (this.tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = out.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return out;
  }
}

export class LiveWriter {
  private readonly slots = new Semaphore(CONCURRENT_WRITES);
  /** The context minutes' own slot: they end at the same moment as the candles and never wait for a candle slot. */
  private readonly contextSlot = new Semaphore(1);
  /** Writes of one series wait here, in order, holding nothing, rather than in a slot waiting for its lock. */
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly store: Pick<Store, 'symbolTransaction' | 'seriesTransaction' | 'transaction'>,
    private readonly features: FeaturePrecomputeService,
    private readonly clock: () => number,
    private readonly onStored: (s: StoredCandles) => void = () => undefined,
    private readonly onFunding: (s: StoredFunding) => void = () => undefined,
    private readonly onDerivatives: (s: StoredDerivatives) => void = () => undefined,
  ) {}

  /**
   * Store closed candles of one series and timeframe with their derivations, in one
   * transaction under the symbol's lock: the candles, the rollups they complete and the feature
   * rows of each commit together, so a reader never sees a candle without its features.
   */
  async candles(series: SeriesRef, tf: CandleTimeframe, rows: readonly CandleInput[]): Promise<void> {
    if (rows.length === 0) return;
    const sorted = [...rows].sort((a, b) => a.time - b.time);
    const first = sorted[0].time;
    const last = sorted[sorted.length - 1].time;
    // Only an hour's end reads other series (the premium): the others run beside the symbol's other venues.
    const readsOthers = TIMEFRAME_MS[tf] >= TIMEFRAME_MS['1h'] || completesBucket(first, last + TIMEFRAME_MS[tf], '1h');
    await this.underLock(series, readsOthers, async (tx) => {
      await tx.candles.upsert(series.id, tf, oneBatch(sorted));
      await tx.candles.rollUp({ seriesId: series.id, from: tf, startMs: first, endMs: last }, this.clock());
      await this.derive(tx, series, tf, first, last + TIMEFRAME_MS[tf]);
    });
    this.onStored({ seriesId: series.id, timeframe: tf, rows: sorted.length, first, last });
  }

  /** The feature tail of every timeframe whose bucket completed in [first, end), and the premium when an hour did. */
  private async derive(tx: Repositories, series: SeriesRef, tf: CandleTimeframe, first: number, end: number): Promise<void> {
    const features = this.features.on(tx);
    const targets = CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(tf));
    // Bars stored without features (an import stopped before its recompute, a version that
    // derived in a second transaction) follow the newest feature row: the tail starts there.
    const newestFeature = await tx.features.latestTimes(series.id, targets);
    for (const target of targets) {
      const from = bucketStart(first, target);
      const newest = newestFeature.get(target);
      const owed = newest === undefined ? null : Math.min(from, newest + TIMEFRAME_MS[target]);
      if (target === tf || completesBucket(first, end, target) || (owed !== null && owed < from)) {
        await features.technical(series.id, target, owed);
      }
    }
    // The premium reads 1h closes: recomputed when an hour completed (or 1h+ was written).
    if (TIMEFRAME_MS[tf] >= TIMEFRAME_MS['1h'] || completesBucket(first, end, '1h')) await features.funding(series.symbol, series.id);
  }

  /**
   * `fn` in this series' turn, in a writer slot, in one transaction holding the symbol's
   * database lock (the lock of `Locks.withSymbolLock`, which imports take) when it reads other
   * series, else the series' lock and the symbol's shared.
   */
  private underLock<T>(series: SeriesRef, readsOthers: boolean, fn: (tx: Repositories) => Promise<T>): Promise<T> {
    const run = () => (readsOthers ? this.store.symbolTransaction(series.symbol, fn) : this.store.seriesTransaction(series.symbol, series.id, fn));
    return this.queue.run(String(series.id), () => this.slots.run(run));
  }

  /** Store funding rates of a perpetual series (settling as `intervals` says), then the symbol's funding features. */
  async funding(series: SeriesRef, rows: readonly FundingRateInput[], intervals: SettlementIntervals = HOURLY): Promise<void> {
    if (rows.length === 0) return;
    await this.underLock(series, true, async (tx) => {
      await tx.funding.upsert(series.id, oneBatch(rows), intervals);
      await this.features.on(tx).funding(series.symbol, series.id);
    });
    const first = rows.reduce((t, r) => Math.min(t, r.time), Infinity);
    const last = rows.reduce((t, r) => Math.max(t, r.time), -Infinity);
    this.onFunding({ seriesId: series.id, rows: rows.length, first, last });
  }

  /**
   * A venue's past context of one series (a backfill): its minutes added where none is recorded,
   * then its 5-minute open interest into the buckets that know none, with the rollups, in one
   * transaction in a writer slot (the live minutes keep their own).
   */
  async pastContext(series: SeriesRef, minutes: readonly DerivativesInput[], openInterest: ReadonlyArray<{ time: number; openInterest: string }> = []): Promise<void> {
    if (minutes.length === 0 && openInterest.length === 0) return;
    let [first, last] = [Infinity, -Infinity];
    for (const t of [...minutes.map((r) => r.time), ...openInterest.flatMap((p) => [p.time, p.time + TIMEFRAME_MS['5m'] - TIMEFRAME_MS['1m']])]) {
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
    await this.slots.run(() =>
      this.store.transaction(async (tx) => {
        await tx.derivatives.addMinutes(series.id, minutes);
        if (minutes.length > 0) await tx.derivatives.rollUp(series.id, first, last, this.clock());
        if (openInterest.length === 0) return;
        await tx.derivatives.fillFiveMinuteOpenInterest(series.id, openInterest);
        await tx.derivatives.rollUp(series.id, first, last, this.clock());
      }),
    );
    this.onDerivatives({ seriesId: series.id, rows: minutes.length, first, last });
  }

  /**
   * Store closed minutes of perpetual contexts (each series' own) with the rollups they
   * complete, in one transaction: the minutes that end together are one write.
   */
  async derivatives(batch: ReadonlyArray<{ series: SeriesRef; rows: readonly DerivativesInput[] }>): Promise<void> {
    const written = batch.filter((b) => b.rows.length > 0);
    if (written.length === 0) return;
    const spans = written.map((b) => ({
      seriesId: b.series.id,
      rows: b.rows.length,
      first: b.rows.reduce((t, r) => Math.min(t, r.time), Infinity),
      last: b.rows.reduce((t, r) => Math.max(t, r.time), -Infinity),
    }));
    await this.queue.run('derivatives', () =>
      this.contextSlot.run(() =>
        this.store.transaction(async (tx) => {
          await tx.derivatives.upsertMinutes(written.flatMap((b) => b.rows.map((row) => ({ seriesId: b.series.id, row }))));
          for (const s of spans) await tx.derivatives.rollUp(s.seriesId, s.first, s.last, this.clock());
        }),
      ),
    );
    for (const s of spans) this.onDerivatives(s);
  }
}
