/**
 * What runs after data changes: rollups, then the features of every affected timeframe and
 * the funding/premium features of the symbol, then the quality of both venues of the symbol.
 * One entry point for the CLI, imports, the demo seed and jobs.
 */
import type { Database } from '../db/database';
import { CANDLE_TIMEFRAMES, bucketStart, type CandleTimeframe } from '../domain/timeframe';
import type { FeatureEngine } from './feature-engine.service';
import type { QualityService } from './quality.service';
import { rollup } from './rollup.service';

/** Class id of the per-symbol advisory locks (the object id is hashtext(symbol)). */
export const SYMBOL_LOCK_CLASS = 7_734_214;

export interface ComputeSummary {
  series: number;
  rollups: number;
  featureRows: number;
  qualityRecords: number;
}

export class ComputeService {
  constructor(
    private readonly db: Database,
    private readonly features: FeatureEngine,
    private readonly quality: QualityService,
  ) {}

  /**
   * Run `fn` (an import and its recalculation) while holding the symbol's advisory lock, so two
   * imports touching one symbol (its two venues, or candles and funding) never compute derived
   * values (premium features, quality) from a read taken before the other committed. Imports of
   * other symbols run in parallel.
   */
  async forSymbol<T>(symbol: string, fn: () => Promise<T>): Promise<T> {
    return this.db.session(async (s) => {
      await s.query('SELECT pg_advisory_lock($1, hashtext($2))', [SYMBOL_LOCK_CLASS, symbol]);
      try {
        return await fn();
      } finally {
        await s.query('SELECT pg_advisory_unlock($1, hashtext($2))', [SYMBOL_LOCK_CLASS, symbol]).catch(() => undefined);
      }
    });
  }

  /** Fresh planner statistics after bulk writes: the quality joins need them (PGlite never auto-analyzes). */
  private async analyze(): Promise<void> {
    // In a session: no statement timeout (it may wait behind a vacuum), and never fatal to the
    // import whose rows are already committed.
    await this.db.session((s) => s.exec('ANALYZE candles')).catch(() => undefined);
  }

  /** Quality of both venues of the series' symbol (consistency compares them). */
  private async qualityOfSymbol(symbol: string, nowMs: number): Promise<void> {
    await this.analyze();
    const ids = await this.db.query<{ id: number }>('SELECT id FROM series WHERE symbol = $1', [symbol]);
    for (const { id } of ids) await this.quality.computeSeries(id, nowMs);
  }

  private async seriesOf(seriesId: number): Promise<{ symbol: string }> {
    const [s] = await this.db.query<{ symbol: string }>('SELECT symbol FROM series WHERE id = $1', [seriesId]);
    return s;
  }

  /** After candles of `timeframe` changed in [startMs, endMs] for one series. */
  async afterCandleImport(seriesId: number, timeframe: CandleTimeframe, startMs: number, endMs: number, nowMs: number): Promise<number> {
    await this.db.transaction((tx) => rollup(tx, { seriesId, from: timeframe, startMs, endMs }, nowMs));
    let rows = 0;
    for (const tf of CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(timeframe))) {
      rows += await this.features.technical(seriesId, tf, bucketStart(startMs, tf));
    }
    const { symbol } = await this.seriesOf(seriesId);
    await this.features.funding(symbol); // premium reads both venues' 1h
    await this.qualityOfSymbol(symbol, nowMs);
    return rows;
  }

  /** After funding rates changed for one (perpetual) series. */
  async afterFundingImport(seriesId: number): Promise<void> {
    await this.features.funding((await this.seriesOf(seriesId)).symbol);
  }

  /** Recompute everything derived, for every series (`mds compute`). */
  async computeAll(nowMs: number): Promise<ComputeSummary> {
    const spans = await this.db.query<{ series_id: number; timeframe: CandleTimeframe; first: Date; last: Date }>(
      `SELECT series_id, timeframe, min(time) AS first, max(time) AS last
       FROM candles WHERE NOT derived GROUP BY series_id, timeframe`,
    );
    const order = (tf: CandleTimeframe) => CANDLE_TIMEFRAMES.indexOf(tf);
    spans.sort((a, b) => a.series_id - b.series_id || order(b.timeframe) - order(a.timeframe));
    for (const s of spans) {
      await this.db.transaction((tx) =>
        rollup(tx, { seriesId: s.series_id, from: s.timeframe, startMs: s.first.getTime(), endMs: s.last.getTime() }, nowMs),
      );
    }
    const all = await this.db.query<{ id: number; symbol: string }>('SELECT id, symbol FROM series ORDER BY id');
    let featureRows = 0;
    for (const s of all) {
      for (const tf of CANDLE_TIMEFRAMES) featureRows += await this.features.technical(s.id, tf, null);
    }
    for (const symbol of new Set(all.map((s) => s.symbol))) await this.features.funding(symbol);
    const qualityRecords = await this.quality.computeAll(nowMs);
    return { series: new Set(spans.map((s) => s.series_id)).size, rollups: spans.length, featureRows, qualityRecords };
  }
}
