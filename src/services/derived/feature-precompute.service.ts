/**
 * Pre-computes features into storage, over the full stored history so a value never depends
 * on the window a client asks for. After an append only the affected tail is recomputed,
 * from LOOKBACK bars before it: the EMA and Wilder states that reach further back have decayed
 * below 1e-20 by then (factor (20/21)^1000 for RSI 21, the slowest), and window features
 * (Bollinger, VWAP, TWAP) are summed per window, so the tail equals the full computation at the
 * 6 decimals served. Serving them is FeatureReadService's job.
 */
import type { CopyChunks } from '../../db/bulk-upsert';
import { technicalCopyChunks } from '../../db/feature-rows';
import { marketKey } from '../../db/series.repository';
import type { Repositories, Store } from '../../db/store';
import { firstBars, type BarHistory, type CandleHistory } from '../../domain/bar-history';
import { TECHNICAL_FEATURES } from '../../domain/feature-catalogue';
import { featureColumns, technicalFeatures, type FeatureColumns } from '../../domain/technical-features';
import type { CandleTimeframe } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';

export const LOOKBACK = 1_000;
/**
 * Bars computed and written per step of a long recompute. The step bounds an import's memory
 * (two steps being written and one computed per timeframe, two timeframes at once after an
 * import): this one keeps it within the import's peak-RSS goal, which larger steps came close
 * to (bench/README.md).
 */
export const FEATURE_CHUNK_BARS = 50_000;
/**
 * Chunk writes in flight at once, each on its own connection, for a process whose pool holds
 * `poolSize` connections: two when the pool has room for the most an import's recalculation
 * then holds (the symbol's lock, the rollup transaction, and per timeframe the next chunk's
 * read beside two writes: 7); otherwise one, and the recalculation runs one timeframe at a time
 * (`RecomputeService.afterCandlesChanged`), as a smaller pool would make a connection wait
 * longer than DATABASE_CONNECT_TIMEOUT.
 */
export function chunkWritersFor(poolSize: number): number {
  return poolSize >= 8 ? 2 : 1;
}

/**
 * The arrays one chunk's features are computed into and written from. A recompute keeps one
 * set more than the writes it has in flight and takes them in turn, so a long history makes
 * no garbage per chunk (arrays this size, allocated and freed chunk after chunk, left the
 * process's RSS far above what it held).
 */
class ChunkArrays {
  times = new Float64Array(0);
  columns = featureColumns(0);

  /** Features of `h` into these arrays; the rows from `first` on, as views. */
  compute(h: CandleHistory, first: number): { times: Float64Array; values: FeatureColumns } {
    const n = h.time.length;
    if (this.times.length < n) {
      this.times = new Float64Array(n);
      this.columns = featureColumns(n);
    }
    const all = technicalFeatures(h, this.columns);
    const times = this.times.subarray(0, n - first);
    for (let i = first; i < n; i++) times[i - first] = h.time[i];
    const values = {} as FeatureColumns;
    for (const name of TECHNICAL_FEATURES) values[name] = all[name].subarray(first);
    return { times, values };
  }
}

/**
 * The features of a history from `fromMs` on (null: everything), chunk by chunk: each chunk
 * computed from LOOKBACK bars before it and up to `chunk` bars, into `arrays` in turn (a chunk's
 * arrays are reused `arrays.length` chunks later: the caller is done with them by then).
 */
async function* featureChunks(
  history: (fromMs: number | null, lookback: number, limit: number) => Promise<CandleHistory>,
  fromMs: number | null,
  chunk: number,
  arrays: ChunkArrays[],
): AsyncGenerator<{ times: Float64Array; values: FeatureColumns }> {
  let from = fromMs;
  for (let chunks = 0; ; chunks++) {
    // LOOKBACK bars before `from` (fewer: all of them, so the values are exact from the
    // beginning) and one more than a chunk from it: that bar, if any, starts the next chunk.
    let h = await history(from, LOOKBACK, chunk + 1);
    let first = 0;
    if (from !== null) while (first < h.time.length && h.time[first] < from) first++;
    const to = h.time.length - first > chunk ? h.time[first + chunk] : null;
    if (to !== null) h = firstBars(h, first + chunk);
    if (first === h.time.length) return;
    yield arrays[chunks % arrays.length].compute(h, first);
    if (to === null) return;
    from = to;
  }
}

/**
 * The technical rows of a whole history held in memory (`bars`), encoded (`technicalCopyChunks`) in
 * the chunks `FeaturePrecomputeService.technical` writes: what it would write, made where it
 * is not written (the demo seed), each chunk as it is asked for.
 */
export async function* encodedTechnical(seriesId: number, timeframe: CandleTimeframe, bars: BarHistory, chunk = FEATURE_CHUNK_BARS): AsyncGenerator<CopyChunks<CandleTimeframe>> {
  const history = (from: number | null, lookback: number, limit: number) => Promise.resolve(bars.history(from, lookback, limit));
  for await (const { times, values } of featureChunks(history, null, chunk, [new ChunkArrays()])) {
    // A chunk holds at least one bar.
    const chunks = [...technicalCopyChunks(seriesId, timeframe, times, values, 0)];
    yield { timeframe, span: { fromMs: times[0], toMs: times[times.length - 1] }, chunks, count: times.length };
  }
}

export class FeaturePrecomputeService {
  constructor(
    private readonly store: Pick<Store, 'series' | 'candles' | 'transaction'>,
    private readonly exchanges: Exchanges,
    private readonly chunk: number = FEATURE_CHUNK_BARS,
    /** Chunk writes in flight at once (`chunkWritersFor`). */
    readonly writers: number = 1,
  ) {}

  /**
   * The same service inside the caller's transaction: every read and write runs on `tx`, one
   * write at a time (two bulk writes would share the connection's savepoint).
   */
  on(tx: Repositories): FeaturePrecomputeService {
    return new FeaturePrecomputeService({ ...tx, transaction: (fn) => fn(tx) }, this.exchanges, this.chunk, 1);
  }

  /**
   * Technical features of one series and timeframe from `fromMs` on (null: everything), in
   * chunks of FEATURE_CHUNK_BARS bars, each computed from LOOKBACK bars before it (the same argument as
   * the incremental tail): memory stays bounded whatever the length of the history. `bars`:
   * the timeframe's whole stored history already in memory (a first import's), read from there
   * in the same steps instead of from the database.
   */
  async technical(seriesId: number, timeframe: CandleTimeframe, fromMs: number | null, bars?: BarHistory): Promise<number> {
    const candles = this.store.candles;
    const history = (from: number | null, lookback: number, limit: number) =>
      bars ? Promise.resolve(bars.history(from, lookback, limit)) : candles.history(seriesId, timeframe, from, lookback, limit);
    // Chunks are written each in its own transaction (or the caller's under `on(tx)`) while the
    // next is read and computed; up to `writers` writes at once, so the server's COPY work,
    // the larger part, can use more than one core. At most `writers` writes are in flight, so
    // the set of `writers + 1` chunk arrays back is free.
    const writes: Array<Promise<number>> = [];
    const arrays = Array.from({ length: this.writers + 1 }, () => new ChunkArrays());
    let written = 0;
    try {
      for await (const { times, values } of featureChunks(history, fromMs, this.chunk, arrays)) {
        while (writes.length >= this.writers) written += await writes.shift()!;
        const writing = this.store.transaction((tx) => tx.features.writeTechnical(seriesId, timeframe, times, values, 0));
        // Observed here so a failure while the next chunk is read is not an unhandled
        // rejection; it is still thrown where the write is awaited.
        writing.catch(() => undefined);
        writes.push(writing);
      }
      while (writes.length > 0) written += await writes.shift()!;
      return written;
    } finally {
      // After a failure, the writes still running end before the failure is reported.
      await Promise.allSettled(writes);
    }
  }

  /**
   * Funding and premium features of the perpetual series of `symbol` (whole history, in SQL)
   * after series `changed` changed: that one's when it is a perpetual, else (spot, whose closes
   * every premium reads, or unknown) every perpetual's.
   */
  async funding(symbol: string, changed?: number): Promise<void> {
    const perps = this.exchanges.perpetuals.map((exchange) => ({ exchange, symbol }));
    const spotMarket = { exchange: this.exchanges.spot, symbol };
    const ids = await this.store.series.idsOf([...perps, spotMarket]);
    const spot = ids.get(marketKey(spotMarket)) ?? null;
    const found = perps.flatMap((m) => {
      const id = ids.get(marketKey(m));
      return id === undefined ? [] : [{ id, maxHours: this.exchanges.fundingMaxHours(m.exchange) }];
    });
    const changedOne = found.filter((p) => p.id === changed);
    for (const perp of changedOne.length > 0 ? changedOne : found) {
      await this.store.transaction((tx) => tx.features.writeFundingFeatures(perp.id, spot, perp.maxHours));
    }
  }
}
