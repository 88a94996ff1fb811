/**
 * What runs after data changes: rollups now; feature pre-computation and quality scoring
 * join this pipeline in their own services. One entry point for the CLI, imports and jobs.
 */
import type { Database } from '../db/database';
import { CANDLE_TIMEFRAMES, CandleTimeframe } from '../domain/timeframe';
import { rollup } from './rollup.service';

export interface ComputeSummary {
  series: number;
  rollups: number;
}

export class ComputeService {
  constructor(private readonly db: Database) {}

  /** After candles of `timeframe` changed in [startMs, endMs] for one series. */
  async afterCandleImport(seriesId: number, timeframe: CandleTimeframe, startMs: number, endMs: number, nowMs: number) {
    await this.db.transaction((tx) => rollup(tx, { seriesId, from: timeframe, startMs, endMs }, nowMs));
  }

  /** Recompute everything derived, for every series (`mds compute`). */
  async computeAll(nowMs: number): Promise<ComputeSummary> {
    // Per series and imported timeframe, the span of its imported candles.
    const spans = await this.db.query<{ series_id: number; timeframe: CandleTimeframe; first: Date; last: Date }>(
      `SELECT series_id, timeframe, min(time) AS first, max(time) AS last
       FROM candles WHERE NOT derived GROUP BY series_id, timeframe`,
    );
    const order = (tf: CandleTimeframe) => CANDLE_TIMEFRAMES.indexOf(tf);
    spans.sort((a, b) => a.series_id - b.series_id || order(b.timeframe) - order(a.timeframe));
    for (const s of spans) {
      await this.afterCandleImport(s.series_id, s.timeframe, s.first.getTime(), s.last.getTime(), nowMs);
    }
    return { series: new Set(spans.map((s) => s.series_id)).size, rollups: spans.length };
  }
}
