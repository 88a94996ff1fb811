/**
 * Pre-computes features into the `features` table, over the full stored history so a value
 * never depends on the window a client asks for. After an append only the affected tail is
 * recomputed, from LOOKBACK bars before it: the EMA and Wilder states that reach further back
 * have decayed below 1e-20 by then (factor (20/21)^1000 for RSI 21, the slowest), and window
 * features (Bollinger, VWAP, TWAP) are summed per window, so the tail equals the full
 * computation at the 6 decimals served.
 */
import type { Database } from '../db/database';
import { FeaturesRepository } from '../db/features.repository';
import { technicalFeatures } from '../domain/technical-features';
import type { CandleTimeframe } from '../domain/timeframe';
import type { Exchanges } from './exchanges';

export const LOOKBACK = 1_000;
/** Bars computed and written per step of a long recompute. */
export const CHUNK = 100_000;

export class FeatureEngine {
  private readonly repo: FeaturesRepository;

  constructor(
    private readonly db: Database,
    private readonly exchanges: Exchanges,
    private readonly chunk: number = CHUNK,
  ) {
    this.repo = new FeaturesRepository(db);
  }

  /**
   * Technical features of one series and timeframe from `fromMs` on (null: everything), in
   * chunks of CHUNK bars, each computed from LOOKBACK bars before it (the same argument as
   * the incremental tail): memory stays bounded whatever the length of the history.
   */
  async technical(seriesId: number, timeframe: CandleTimeframe, fromMs: number | null): Promise<number> {
    let from = fromMs;
    let written = 0;
    // Chunk k is written (on its own connection) while chunk k + 1 is read and computed.
    let writing: Promise<number> = Promise.resolve(0);
    for (;;) {
      const to = await this.repo.barAfter(seriesId, timeframe, from, this.chunk);
      // Fewer than LOOKBACK bars before `from`: compute from the beginning (exact).
      const start = from === null ? null : await this.repo.lookbackStart(seriesId, timeframe, from, LOOKBACK);
      const h = await this.repo.history(seriesId, timeframe, start, to);
      const values = technicalFeatures(h);
      let first = 0;
      if (from !== null) while (first < h.time.length && h.time[first] < from) first++;
      written += await writing;
      writing = this.repo.writeTechnical(seriesId, timeframe, h.time, values, first);
      // Observed here so a failure while the next chunk is read is not an unhandled
      // rejection; it is still thrown where `writing` is awaited.
      writing.catch(() => undefined);
      if (to === null) return written + (await writing);
      from = to;
    }
  }

  /** Funding and premium features of the perpetual series of `symbol` (whole history, in SQL). */
  async funding(symbol: string): Promise<void> {
    const rows = await this.db.query<{ id: number }>('SELECT id FROM series WHERE exchange = $1 AND symbol = $2', [
      this.exchanges.perp,
      symbol,
    ]);
    if (!rows.length) return;
    await this.db.transaction((tx) => this.repo.writeFunding(tx, rows[0].id, this.exchanges.spot));
  }
}
