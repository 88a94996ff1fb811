/**
 * The window SQL of funding's z-scores and sums when venues settle every 1 to 8 hours
 * (docs/DECISIONS.md, "Funding intervals"): a row of interval h is scored over the last
 * floor(720 / h) settlements, 30 days of them. A window frame's size is a constant in SQL, so
 * a series whose venue settles up to every `maxHours` hours gets one window per interval and a
 * CASE picks the row's; an hourly venue's statement is the spec's single 720-row window.
 */

/** Settlements in a z-score's window for a row of interval `hours`. */
export const zscoreRows = (hours: number) => Math.floor(720 / hours);

/** The intervals a z-score may meet on a venue settling at most every `maxHours` hours. */
const intervals = (maxHours: number) => Array.from({ length: maxHours }, (_, i) => i + 1);

/**
 * A z-score of `value` over rows ordered by `order`, per interval: its WINDOW entries, its
 * select-list aggregates (named `<prefix>n<h>`, `<prefix>mean<h>`, `<prefix>sd<h>`), and the
 * score (numeric; null while fewer rows exist or the deviation is about 0) of a row whose
 * interval is `interval` (an expression of the outer query, `alias` the aggregates' relation).
 */
export function zscoreWindows(prefix: string, value: string, maxHours: number, order = 'time') {
  const hs = intervals(maxHours);
  return {
    windows: hs.map((h) => `${prefix}w${h} AS (ORDER BY ${order} ROWS BETWEEN ${zscoreRows(h) - 1} PRECEDING AND CURRENT ROW)`).join(',\n'),
    aggregates: hs
      .map((h) => `count(*) OVER ${prefix}w${h} AS ${prefix}n${h}, avg(${value}) OVER ${prefix}w${h} AS ${prefix}mean${h}, stddev_samp(${value}) OVER ${prefix}w${h} AS ${prefix}sd${h}`)
      .join(',\n'),
    score(alias: string, scored: string, interval: string): string {
      const one = (h: number) =>
        `CASE WHEN ${alias}.${prefix}n${h} = ${zscoreRows(h)} AND ${alias}.${prefix}sd${h} >= 1e-12 THEN ((${scored} - ${alias}.${prefix}mean${h}) / ${alias}.${prefix}sd${h})::float8 END`;
      return maxHours === 1 ? one(1) : `CASE ${interval} ${hs.map((h) => `WHEN ${h} THEN ${one(h)}`).join(' ')} END`;
    },
  };
}

/**
 * The hourly rate of a settlement: `rate` itself on an hourly venue (the spec's numbers, digit
 * for digit), else rate / interval.
 */
export const hourlyRate = (rate: string, interval: string, maxHours: number) => (maxHours === 1 ? rate : `(${rate} / ${interval})`);

/**
 * Recomputes interval_hours of series $1 from the last row before $2 on (or from its first row):
 * the hours since the previous settlement when at most $3 (the venue's longest interval), else
 * the interval before it; $4 for a first row. Only rows whose interval changes are written;
 * their times are returned, for the watermarks.
 */
export const RECOMPUTE_INTERVALS_SQL = `WITH anchor AS (
    SELECT time, interval_hours FROM funding_rates WHERE series_id = $1 AND time < $2 ORDER BY time DESC LIMIT 1
  ), tail AS (
    SELECT time, interval_hours,
           CASE WHEN lag(time) OVER (ORDER BY time) IS NOT NULL
                 AND time - lag(time) OVER (ORDER BY time) <= make_interval(hours => $3::int)
                THEN (extract(epoch FROM time - lag(time) OVER (ORDER BY time)) / 3600)::int END AS distance
    FROM funding_rates
    WHERE series_id = $1 AND time >= coalesce((SELECT time FROM anchor), '-infinity')
  ), runs AS (
    SELECT time, interval_hours, distance, count(distance) OVER (ORDER BY time) AS run FROM tail
  ), computed AS (
    SELECT time, coalesce(max(distance) OVER (PARTITION BY run), (SELECT interval_hours FROM anchor), $4::int) AS hours FROM runs
  )
  UPDATE funding_rates f SET interval_hours = c.hours
  FROM computed c
  WHERE f.series_id = $1 AND f.time = c.time AND f.interval_hours <> c.hours
  RETURNING f.time AS t`; // a plain column: Citus allows no function in RETURNING
