-- TimescaleDB continuous aggregates against the service's rollups, on a history built by
-- `DATABASE_ENGINE=timescaledb npm run bench:scale -- --keep` (docs/SCALING.md, bench/README.md):
--   psql -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p <port> -U postgres -d <database> [-v from=ISO -v to=ISO] -f bench/continuous-aggregates.sql
-- Side by side over the same 1m rows (every series, all chunks compressed; [from, to) whole
-- days, or the whole history without them):
-- 1. the service's rollup statement's aggregation (candle-derivations.ts ROLLUP_SQL: date_bin
--    buckets, array_agg for open and close), every series at once, into a scratch table;
-- 2. a continuous aggregate per coarser timeframe (5m from 1m, then each from the next finer
--    one: hierarchical), materialized by refresh_continuous_aggregate.
-- Then the aggregates are compared, row by row, with the derived candles the service stored.
-- Trade flow is left out of both (its NULL-when-partial sum has no continuous-aggregate form).
-- Everything it creates is dropped at the end.
\if :{?from}
\else
\set from ''
\endif
\if :{?to}
\else
\set to ''
\endif
SELECT coalesce(NULLIF(:'from', '')::timestamptz, '-infinity') AS from_time, coalesce(NULLIF(:'to', '')::timestamptz, 'infinity') AS to_time \gset
\timing on
SET client_min_messages = warning;

\echo '== the service''s aggregation, 5m from 1m, every series'
CREATE UNLOGGED TABLE bench_rollup_5m AS
SELECT series_id, bucket AS time,
       (array_agg(open ORDER BY time))[1] AS open, max(high) AS high, min(low) AS low,
       (array_agg(close ORDER BY time DESC))[1] AS close, sum(volume) AS volume
FROM (SELECT series_id, date_bin('5 minutes', time, timestamptz '1970-01-01 00:00:00+00') AS bucket, time, open, high, low, close, volume
      FROM candles WHERE timeframe = '1m' AND time >= :'from_time' AND time < :'to_time') m
GROUP BY series_id, bucket;

\echo '== continuous aggregates: 5m from 1m, then 15m, 1h, 4h, 1d, each from the finer one (each created, then refreshed)'
SELECT format($$CREATE MATERIALIZED VIEW bench_cagg_%s WITH (timescaledb.continuous, timescaledb.materialized_only = true) AS
  SELECT series_id, time_bucket(%L, time) AS time, first(open, time) AS open, max(high) AS high, min(low) AS low,
         last(close, time) AS close, sum(volume) AS volume
  FROM %s GROUP BY series_id, time_bucket(%L, time) WITH NO DATA$$, tf, period, source, period),
       format('CALL refresh_continuous_aggregate(%L, %L::timestamptz, %L::timestamptz)', 'bench_cagg_' || tf, NULLIF(:'from', ''), NULLIF(:'to', ''))
FROM (VALUES (1, '5m', '5 minutes', $$candles WHERE timeframe = '1m'$$), (2, '15m', '15 minutes', 'bench_cagg_5m'),
             (3, '1h', '1 hour', 'bench_cagg_15m'), (4, '4h', '4 hours', 'bench_cagg_1h'), (5, '1d', '1 day', 'bench_cagg_4h')) AS l(n, tf, period, source)
ORDER BY n \gexec

\timing off
\echo '== rows of each aggregate that differ from the derived candles the service stored (a row missing on either side counts)'
SELECT string_agg(format($$SELECT %L AS timeframe, count(*) FILTER (WHERE c.time IS NULL OR s.time IS NULL
    OR (c.open, c.high, c.low, c.close, c.volume) IS DISTINCT FROM (s.open, s.high, s.low, s.close, s.volume)) AS differing, count(*) AS compared
  FROM bench_cagg_%s c FULL JOIN (SELECT * FROM candles WHERE timeframe = %L AND derived AND time >= %L AND time < %L) s
    ON s.series_id = c.series_id AND s.time = c.time$$, tf, tf, tf, :'from_time', :'to_time'), ' UNION ALL ' ORDER BY n)
FROM (VALUES (1, '5m'), (2, '15m'), (3, '1h'), (4, '4h'), (5, '1d')) AS l(n, tf) \gexec

\echo '== the scratch 5m aggregation against the 5m aggregate (the two forms agree?)'
SELECT count(*) AS differing FROM bench_rollup_5m r FULL JOIN bench_cagg_5m c USING (series_id, time)
WHERE (r.open, r.high, r.low, r.close, r.volume) IS DISTINCT FROM (c.open, c.high, c.low, c.close, c.volume);

\echo '== the aggregates'' size on disk'
SELECT 'continuous aggregates' AS what, sum(hypertable_size(format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name)::regclass)) AS bytes
FROM timescaledb_information.continuous_aggregates WHERE view_name LIKE 'bench_cagg_%';

SELECT format('DROP MATERIALIZED VIEW bench_cagg_%s', tf) FROM (VALUES ('1d'), ('4h'), ('1h'), ('15m'), ('5m')) AS l(tf) \gexec
DROP TABLE bench_rollup_5m;
