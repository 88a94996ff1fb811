/**
 * What runs after stored data changes: rollups, then the features of every affected timeframe
 * and the funding/premium features of the symbol, then the quality of both venues of the
 * symbol (a perpetual's context: its rollups and events only). One entry point for `mds import`,
 * `mds compute`, the demo seed and tests.
 */
import type { Store } from '../../db/store';
import { CANDLE_TIMEFRAMES, bucketStart, type CandleTimeframe } from '../../domain/timeframe';
import { QUALITY_WINDOW_MS } from '../../domain/quality';
import type { BarHistory } from '../../domain/bar-history';
import type { ImportedBars } from '../../domain/imported-bars';
import type { EventPublisher } from '../events/event-publisher';
import type { FeaturePrecomputeService } from './feature-precompute.service';
import type { QualityService } from './quality.service';

export interface RecomputeSummary {
  series: number;
  rollups: number;
  /** Series whose perpetual context was rolled up from its minutes. */
  contextRollups: number;
  featureRows: number;
  qualityRecords: number;
}

export class RecomputeService {
  constructor(
    private readonly store: Pick<Store, 'series' | 'candles' | 'derivatives' | 'locks' | 'transaction' | 'partitions'>,
    private readonly features: FeaturePrecomputeService,
    private readonly quality: QualityService,
    /** Told what an import stored once it and its derivations committed (GraphQL subscriptions). */
    private readonly events?: Pick<EventPublisher, 'candlesStored' | 'fundingStored' | 'derivativesStored'>,
  ) {}

  /**
   * Run `fn` (an import and its recalculation) while holding the symbol's advisory lock, so two
   * imports touching one symbol (its two venues, or candles and funding) never compute derived
   * values (premium features, quality) from a read taken before the other committed. Imports of
   * other symbols run in parallel.
   */
  forSymbol<T>(symbol: string, fn: () => Promise<T>): Promise<T> {
    return this.store.locks.withSymbolLock(symbol, fn);
  }

  /** Quality of both venues of the symbol (consistency compares them). */
  private async qualityOfSymbol(symbol: string, nowMs: number): Promise<void> {
    // Fresh planner statistics for the quality reads (the partitions of the window they read),
    // never fatal to the import whose rows are committed.
    await this.store.partitions.analyzeSpan(['candles'], nowMs - QUALITY_WINDOW_MS, nowMs).catch(() => undefined);
    for (const s of await this.store.series.ofSymbol(symbol)) await this.quality.computeSeries(s.id, nowMs);
  }

  /**
   * After candles of `timeframe` changed in [startMs, endMs] for one series; returns feature rows
   * written. `bars`: a first import's rows kept in memory (ImportResult.bars): the rollups are
   * written from them and every timeframe's features computed from them, nothing read back.
   */
  async afterCandlesChanged(seriesId: number, timeframe: CandleTimeframe, startMs: number, endMs: number, nowMs: number, bars?: ImportedBars): Promise<number> {
    const [own, ...coarser] = CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(timeframe));
    let finished = bars?.usable && bars.timeframe === timeframe ? (bars.finish(nowMs) ?? undefined) : undefined;
    const kept = finished !== undefined;
    // Only `histories` holds the kept bars, and each rollup's decimals are let go once written
    // (its features need only its doubles): a timeframe's bars go once its features are written.
    const histories = new Map<CandleTimeframe, BarHistory>(finished ? [[own, finished.own]] : []);
    const rollups = finished?.rollups ?? [];
    finished = undefined;
    const historyOf = (tf: CandleTimeframe) => histories.get(tf);
    const rollUp = () =>
      this.store.transaction(async (tx) => {
        if (!kept) return tx.candles.rollUp({ seriesId, from: timeframe, startMs, endMs }, nowMs);
        for (const r of rollups.splice(0)) {
          await tx.candles.insertRollups(seriesId, r);
          histories.set(r.timeframe, r.history());
        }
      });
    const { symbol } = (await this.store.series.get(seriesId))!;
    let rows = 0;
    let quality: Promise<void> | undefined;
    if (this.features.writers > 1) {
      // The features of the changed timeframe read only its candles, which are committed: they
      // are computed while the coarser timeframes are rolled up (on other connections, so the
      // server works on both at once), and each coarser timeframe's follow its rollup. Quality
      // reads only candles: it is scored once the rollups committed, beside the features.
      const ownFeatures = this.features.technical(seriesId, own, bucketStart(startMs, own), historyOf(own));
      ownFeatures.catch(() => undefined);
      try {
        await rollUp();
        quality = this.qualityOfSymbol(symbol, nowMs);
        quality.catch(() => undefined);
        if (kept) {
          // From memory the coarser features need no rollup to wait for: they follow the
          // changed timeframe's, one computation at a time (its bars let go first), which keeps
          // the peak memory of two at once away while the server still has writes to work on.
          rows += await ownFeatures;
          histories.delete(own);
        }
        for (const tf of coarser) {
          rows += await this.features.technical(seriesId, tf, bucketStart(startMs, tf), historyOf(tf));
          histories.delete(tf);
        }
      } finally {
        await Promise.allSettled([ownFeatures, quality]);
      }
      if (!kept) rows += await ownFeatures;
    } else {
      // A small pool: one thing at a time (see chunkWritersFor).
      await rollUp();
      for (const tf of [own, ...coarser]) rows += await this.features.technical(seriesId, tf, bucketStart(startMs, tf), historyOf(tf));
    }
    await this.features.funding(symbol, seriesId); // the premium reads the perpetual's and spot's 1h
    // The candles, their rollups and their features are committed: a subscriber may ask for them.
    await this.events?.candlesStored(seriesId, timeframe, startMs, endMs);
    await (quality ?? this.qualityOfSymbol(symbol, nowMs));
    return rows;
  }

  /** After funding rates changed for one (perpetual) series, in [startMs, endMs] when known. */
  async afterFundingChanged(seriesId: number, startMs?: number, endMs?: number): Promise<void> {
    await this.features.funding((await this.store.series.get(seriesId))!.symbol, seriesId);
    if (startMs !== undefined && endMs !== undefined) await this.events?.fundingStored(seriesId, startMs, endMs);
  }

  /** After context minutes of a perpetual series changed in [startMs, endMs]: their rollups, then their events. */
  async afterDerivativesChanged(seriesId: number, startMs: number, endMs: number, nowMs: number): Promise<void> {
    await this.store.transaction((tx) => tx.derivatives.rollUp(seriesId, startMs, endMs, nowMs));
    await this.events?.derivativesStored(seriesId, startMs, endMs);
  }

  /**
   * Recompute everything derived, for every series (`mds compute`): the candles' rollups, the
   * perpetual context's rollups, the features, the quality.
   */
  async recomputeAll(nowMs: number): Promise<RecomputeSummary> {
    const spans = await this.store.candles.importedSpans();
    const order = (tf: CandleTimeframe) => CANDLE_TIMEFRAMES.indexOf(tf);
    spans.sort((a, b) => a.seriesId - b.seriesId || order(b.timeframe) - order(a.timeframe));
    for (const s of spans) {
      await this.store.transaction((tx) => tx.candles.rollUp({ seriesId: s.seriesId, from: s.timeframe, startMs: s.first, endMs: s.last }, nowMs));
    }
    const contextSpans = await this.store.derivatives.minuteSpans();
    for (const s of contextSpans) {
      await this.store.transaction((tx) => tx.derivatives.rollUp(s.seriesId, s.first, s.last, nowMs));
    }
    const all = await this.store.series.list();
    all.sort((a, b) => a.id - b.id);
    let featureRows = 0;
    for (const s of all) {
      for (const tf of CANDLE_TIMEFRAMES) featureRows += await this.features.technical(s.id, tf, null);
    }
    for (const symbol of new Set(all.map((s) => s.symbol))) await this.features.funding(symbol);
    const qualityRecords = await this.quality.computeAll(nowMs);
    return {
      series: new Set(spans.map((s) => s.seriesId)).size,
      rollups: spans.length,
      contextRollups: contextSpans.length,
      featureRows,
      qualityRecords,
    };
  }
}
