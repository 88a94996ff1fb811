/**
 * Derives coarser candles from finer ones, set-based in PostgreSQL. Each timeframe is rolled
 * up from the next finer one (1m -> 5m -> 15m -> 1h -> 4h -> 1d; every bucket nests in the
 * next), so a derived candle equals the aggregate of the finer candles it has. Only complete
 * buckets (period closed at `now`) are written, and a candle imported at a timeframe is never
 * overwritten by a derived one.
 */
import type { SqlSession } from '../db/database';
import { CANDLE_TIMEFRAMES, CandleTimeframe, TIMEFRAME_MS } from '../domain/timeframe';

const DAY_MS_FOR_ROLLUP = TIMEFRAME_MS['1d'];

export interface RollupRange {
  seriesId: number;
  /** The finest timeframe whose candles changed; every coarser one is recomputed. */
  from: CandleTimeframe;
  startMs: number;
  endMs: number;
}

const ROLLUP_SQL = `
INSERT INTO candles (series_id, timeframe, time, open, high, low, close, volume, derived)
SELECT $1, $2, bucket,
       (array_agg(open ORDER BY time))[1], max(high), min(low),
       (array_agg(close ORDER BY time DESC))[1], sum(volume), true
FROM (
  SELECT date_bin($3::interval, time, timestamptz '1970-01-01 00:00:00+00') AS bucket, time, open, high, low, close, volume
  FROM candles
  WHERE series_id = $1 AND timeframe = $4 AND time >= $5 AND time < $6
) finer
GROUP BY bucket
HAVING bucket + $3::interval <= $7
ON CONFLICT (series_id, timeframe, time) DO UPDATE
  SET open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low,
      close = EXCLUDED.close, volume = EXCLUDED.volume
  WHERE candles.derived`;

/** Recompute every timeframe coarser than `range.from` over whole days covering the range. */
export async function rollup(s: SqlSession, range: RollupRange, nowMs: number): Promise<void> {
  const start = new Date(Math.floor(range.startMs / DAY_MS_FOR_ROLLUP) * DAY_MS_FOR_ROLLUP);
  const end = new Date(Math.floor(range.endMs / DAY_MS_FOR_ROLLUP) * DAY_MS_FOR_ROLLUP + DAY_MS_FOR_ROLLUP);
  const now = new Date(nowMs);
  const first = CANDLE_TIMEFRAMES.indexOf(range.from);
  for (let i = first + 1; i < CANDLE_TIMEFRAMES.length; i++) {
    const target = CANDLE_TIMEFRAMES[i];
    const source = CANDLE_TIMEFRAMES[i - 1];
    await s.query(ROLLUP_SQL, [
      range.seriesId,
      target,
      `${TIMEFRAME_MS[target] / 1000} seconds`,
      source,
      start,
      end,
      now,
    ]);
  }
}
