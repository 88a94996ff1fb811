/**
 * Pre-computes features into storage, over the full stored history so a value never depends
 * on the window a client asks for. After an append only the affected tail is recomputed,
 * from LOOKBACK bars before it: the EMA and Wilder states that reach further back have decayed
 * below 1e-20 by then (factor (20/21)^1000 for RSI 21, the slowest), and window features
 * (Bollinger, VWAP, TWAP) are summed per window, so the tail equals the full computation at the
 * 6 decimals served. Serving them is FeatureReadService's job.
 */
import { marketKey } from '../db/series.repository';
import type { Repositories, Store } from '../db/store';
import { technicalFeatures } from '../domain/technical-features';
import type { CandleTimeframe } from '../domain/timeframe';
import type { Venues } from '../domain/venues';

export const LOOKBACK = 1_000;
/** Bars computed and written per step of a long recompute. */
export const CHUNK = 100_000;

export class FeaturePrecomputeService {
  constructor(
    private readonly store: Pick<Store, 'series' | 'candles' | 'transaction'>,
    private readonly venues: Venues,
    private readonly chunk: number = CHUNK,
  ) {}

  /** The same service inside the caller's transaction: every read and write runs on `tx`. */
  on(tx: Repositories): FeaturePrecomputeService {
    return new FeaturePrecomputeService({ ...tx, transaction: (fn) => fn(tx) }, this.venues, this.chunk);
  }

  /**
   * Technical features of one series and timeframe from `fromMs` on (null: everything), in
   * chunks of CHUNK bars, each computed from LOOKBACK bars before it (the same argument as
   * the incremental tail): memory stays bounded whatever the length of the history.
   */
  async technical(seriesId: number, timeframe: CandleTimeframe, fromMs: number | null): Promise<number> {
    const candles = this.store.candles;
    let from = fromMs;
    let written = 0;
    // Chunk k is written (in its own transaction, or the caller's under `on(tx)`) while chunk
    // k + 1 is read and computed.
    let writing: Promise<number> = Promise.resolve(0);
    for (;;) {
      // LOOKBACK bars before `from` (fewer: all of them, so the values are exact from the
      // beginning) and one more than a chunk from it: that bar, if any, starts the next chunk.
      const h = await candles.history(seriesId, timeframe, from, LOOKBACK, this.chunk + 1);
      let first = 0;
      if (from !== null) while (first < h.time.length && h.time[first] < from) first++;
      const to = h.time.length - first > this.chunk ? h.time[first + this.chunk] : null;
      if (to !== null) for (const column of Object.values(h)) column.length = first + this.chunk;
      if (first === h.time.length) return written + (await writing);
      const values = technicalFeatures(h);
      written += await writing;
      writing = this.store.transaction((tx) => tx.features.writeTechnical(seriesId, timeframe, h.time, values, first));
      // Observed here so a failure while the next chunk is read is not an unhandled
      // rejection; it is still thrown where `writing` is awaited.
      writing.catch(() => undefined);
      if (to === null) return written + (await writing);
      from = to;
    }
  }

  /** Funding and premium features of the perpetual series of `symbol` (whole history, in SQL). */
  async funding(symbol: string): Promise<void> {
    const perpMarket = { exchange: this.venues.perp, symbol };
    const spotMarket = { exchange: this.venues.spot, symbol };
    const ids = await this.store.series.idsOf([perpMarket, spotMarket]);
    const perp = ids.get(marketKey(perpMarket));
    if (perp === undefined) return;
    const spot = ids.get(marketKey(spotMarket)) ?? null;
    await this.store.transaction((tx) => tx.features.writeFundingFeatures(perp, spot));
  }
}
