/**
 * The SQL of the candles' derivations (CandlesRepository): the rollups, the coverage /v1/markets
 * reports, and the quality score's basis between a perpetual and its spot series.
 */
import { sqlTime } from './sql';

/** The sum of a column over a group, or null when any row of it has none. */
export const wholeSum = (col: string) => `CASE WHEN count(${col}) = count(*) THEN sum(${col}) END`;

/**
 * The source of a rollup's INSERT: the finer rows of `table` (its `columns`) grouped by bucket,
 * closed buckets only. $1 series, $3 the bucket's period, $4 the finer timeframe, [$5, $6) the
 * finer rows' range, $7 now.
 */
export const finerByBucket = (table: string, columns: string) => `
FROM (
  SELECT date_bin($3::interval, time, timestamptz '1970-01-01 00:00:00+00') AS bucket, ${columns}
  FROM ${table}
  WHERE series_id = $1 AND timeframe = $4 AND time >= $5 AND time < $6
) finer
GROUP BY bucket
HAVING bucket + $3::interval <= $7`;

/**
 * A derived candle for every complete bucket (period closed at $7) from the finer candles it
 * has; an imported candle (derived = false) is never overwritten, nor a derived one rewritten
 * with the values it already holds (a live minute re-rolls its buckets without dead rows).
 * Trade flow is summed, and null when any finer candle lacks it (a partial sum would mislead).
 */
export const ROLLUP_SQL = `
INSERT INTO candles (series_id, timeframe, time, open, high, low, close, volume, derived,
                     quote_volume, trades, taker_buy_volume, taker_buy_quote_volume)
SELECT $1, $2, bucket,
       (array_agg(open ORDER BY time))[1], max(high), min(low),
       (array_agg(close ORDER BY time DESC))[1], sum(volume), true,
       ${wholeSum('quote_volume')}, ${wholeSum('trades')}, ${wholeSum('taker_buy_volume')}, ${wholeSum('taker_buy_quote_volume')}
${finerByBucket('candles', 'time, open, high, low, close, volume, quote_volume, trades, taker_buy_volume, taker_buy_quote_volume')}
ON CONFLICT (series_id, timeframe, time) DO UPDATE
  SET open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low,
      close = EXCLUDED.close, volume = EXCLUDED.volume,
      quote_volume = EXCLUDED.quote_volume, trades = EXCLUDED.trades,
      taker_buy_volume = EXCLUDED.taker_buy_volume, taker_buy_quote_volume = EXCLUDED.taker_buy_quote_volume
  WHERE candles.derived
    AND (candles.open, candles.high, candles.low, candles.close, candles.volume,
         candles.quote_volume, candles.trades, candles.taker_buy_volume, candles.taker_buy_quote_volume)
        IS DISTINCT FROM (EXCLUDED.open, EXCLUDED.high, EXCLUDED.low, EXCLUDED.close, EXCLUDED.volume,
         EXCLUDED.quote_volume, EXCLUDED.trades, EXCLUDED.taker_buy_volume, EXCLUDED.taker_buy_quote_volume)`;

/**
 * First and last closed candle per series ($1) and timeframe (index lookups, no scans), the
 * first and last funding time with the newest settlement's interval (`hours`), and the first
 * and last closed minute of the perpetual's context (`derivatives`), at $2 (now).
 */
const coverageSql = (series: string, id: string) => `
SELECT s.id AS series_id, tf.timeframe,
       ${sqlTime(`(SELECT time FROM candles c WHERE c.series_id = ${id} AND c.timeframe = tf.timeframe ORDER BY time LIMIT 1)`)} AS first,
       ${sqlTime(`(SELECT time FROM candles c WHERE c.series_id = ${id} AND c.timeframe = tf.timeframe AND c.time + tf.period <= $2 ORDER BY time DESC LIMIT 1)`)} AS last,
       NULL::int AS hours
FROM ${series}
CROSS JOIN (VALUES ('1m', interval '1 minute'), ('5m', interval '5 minutes'), ('15m', interval '15 minutes'),
                   ('1h', interval '1 hour'), ('4h', interval '4 hours'), ('1d', interval '1 day')) AS tf(timeframe, period)
UNION ALL
SELECT s.id, 'funding',
       ${sqlTime(`(SELECT min(time) FROM funding_rates f WHERE f.series_id = ${id})`)},
       ${sqlTime(`(SELECT max(time) FROM funding_rates f WHERE f.series_id = ${id} AND f.time <= $2)`)},
       (SELECT interval_hours::int FROM funding_rates f WHERE f.series_id = ${id} AND f.time <= $2 ORDER BY time DESC LIMIT 1)
FROM ${series}
UNION ALL
SELECT s.id, 'derivatives',
       ${sqlTime(`(SELECT time FROM derivatives d WHERE d.series_id = ${id} AND d.timeframe = '1m' ORDER BY time LIMIT 1)`)},
       ${sqlTime(`(SELECT time FROM derivatives d WHERE d.series_id = ${id} AND d.timeframe = '1m' AND d.time + interval '1 minute' <= $2 ORDER BY time DESC LIMIT 1)`)},
       NULL
FROM ${series}`;
export const COVERAGE_SQL = coverageSql('unnest($1::int[]) AS s(id)', 's.id');
/**
 * The same for one series ($1), for Citus (DATABASE_ENGINE=citus): every table then names one
 * value of the distribution column, so the statement runs whole on the series' worker; Citus
 * cannot run the form above, correlated subqueries over an unnest of several series.
 */
export const COVERAGE_ONE_SQL = coverageSql('(VALUES ($1::int)) AS s(id)', '$1::int');

/**
 * Mean |perp - spot| / spot of series $1 and $2 at timeframe $3 over [$4, $5]: one range scan of
 * the window's partitions grouped by time, not a join of the two series (on partitions without
 * planner statistics a join was planned as a nested loop of range scans, quadratic in the
 * window's rows).
 */
export const MEAN_BASIS_SQL = `
SELECT avg(abs(perp - spot) / spot)::float8 AS basis
FROM (
  SELECT min(close) FILTER (WHERE series_id = $1) AS perp, min(close) FILTER (WHERE series_id = $2) AS spot
  FROM candles
  WHERE series_id IN ($1, $2) AND timeframe = $3 AND time >= $4 AND time <= $5
  GROUP BY time
) t
WHERE perp IS NOT NULL AND spot IS NOT NULL`;
