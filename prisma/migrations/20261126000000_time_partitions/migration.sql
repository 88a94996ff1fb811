-- candles and features partitioned by timeframe, then by time (docs/ARCHITECTURE.md, Time
-- partitions): each timeframe is a LIST partition, itself ranged by month for 1m and 5m and by
-- year for the coarser timeframes and the funding features. There is no DEFAULT partition: the
-- writers create the partitions of each batch's span first (mds_ensure_partitions, called on a
-- connection of its own, src/db/partitions.ts), and the partition job keeps two periods ahead.
-- Retention drops a timeframe's old partitions of both tables (src/services/partition.service.ts).
--
-- An existing database is migrated in place: the tables are renamed, the partitioned ones
-- created, the partitions of the stored span created, the rows copied and the old tables
-- dropped, in this migration's one transaction (it needs the tables' size again in free disk).

-- The period of a timeframe's partitions.
CREATE FUNCTION mds_partition_period(timeframe text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT
    AS $$ SELECT CASE WHEN timeframe IN ('1m', '5m') THEN 'month' ELSE 'year' END $$;

-- Create the missing partitions of `timeframe` for every period that [from_time, to_time]
-- touches, in candles (candle timeframes) and features; returns how many it created. A
-- partition is a plain table given its primary key (index fillfactor 100: rows arrive in time
-- order, so index pages are filled once and not split again), then attached: ATTACH takes a
-- SHARE UPDATE EXCLUSIVE lock on the timeframe's table, which neither reads nor writes wait
-- for (CREATE TABLE ... PARTITION OF would take an ACCESS EXCLUSIVE one). Two callers creating
-- the same partition at once: the second waits for the first's commit, then finds it made.
CREATE FUNCTION mds_ensure_partitions(timeframe text, from_time timestamptz, to_time timestamptz) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    period text := mds_partition_period(timeframe);
    step interval := ('1 ' || mds_partition_period(timeframe))::interval;
    first_start timestamp := date_trunc(mds_partition_period(timeframe), from_time AT TIME ZONE 'UTC');
    last_start timestamp := date_trunc(mds_partition_period(timeframe), to_time AT TIME ZONE 'UTC');
    start timestamp;
    parent text;
    name text;
    created integer := 0;
BEGIN
    IF last_start - first_start > interval '200 years' THEN
        RAISE EXCEPTION 'mds_ensure_partitions: span % to % is too long', from_time, to_time;
    END IF;
    start := first_start;
    WHILE start <= last_start LOOP
        FOREACH parent IN ARRAY CASE WHEN timeframe = 'funding' THEN ARRAY['features'] ELSE ARRAY['candles', 'features'] END LOOP
            name := format('%s_%s_%s', parent, timeframe, to_char(start, CASE period WHEN 'month' THEN 'YYYY_MM' ELSE 'YYYY' END));
            CONTINUE WHEN to_regclass(name) IS NOT NULL;
            BEGIN
                EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', name, parent);
                EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (series_id, timeframe, "time") WITH (fillfactor = 100)', name);
                EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                               parent || '_' || timeframe, name, start::text || '+00', (start + step)::text || '+00');
                created := created + 1;
            EXCEPTION WHEN duplicate_table OR unique_violation THEN
                -- made by another caller meanwhile
            END;
        END LOOP;
        start := start + step;
    END LOOP;
    RETURN created;
END $$;

ALTER TABLE "candles" RENAME TO "candles_unpartitioned";
ALTER TABLE "candles_unpartitioned" RENAME CONSTRAINT "candles_pkey" TO "candles_unpartitioned_pkey";
ALTER TABLE "features" RENAME TO "features_unpartitioned";
ALTER TABLE "features_unpartitioned" RENAME CONSTRAINT "features_pkey" TO "features_unpartitioned_pkey";

CREATE TABLE "candles" (
    "series_id" INTEGER NOT NULL,
    "timeframe" TEXT NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "open" DECIMAL NOT NULL,
    "high" DECIMAL NOT NULL,
    "low" DECIMAL NOT NULL,
    "close" DECIMAL NOT NULL,
    "volume" DECIMAL NOT NULL,
    "derived" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "candles_pkey" PRIMARY KEY ("series_id", "timeframe", "time")
) PARTITION BY LIST ("timeframe");
CREATE TABLE "candles_1m" PARTITION OF "candles" FOR VALUES IN ('1m') PARTITION BY RANGE ("time");
CREATE TABLE "candles_5m" PARTITION OF "candles" FOR VALUES IN ('5m') PARTITION BY RANGE ("time");
CREATE TABLE "candles_15m" PARTITION OF "candles" FOR VALUES IN ('15m') PARTITION BY RANGE ("time");
CREATE TABLE "candles_1h" PARTITION OF "candles" FOR VALUES IN ('1h') PARTITION BY RANGE ("time");
CREATE TABLE "candles_4h" PARTITION OF "candles" FOR VALUES IN ('4h') PARTITION BY RANGE ("time");
CREATE TABLE "candles_1d" PARTITION OF "candles" FOR VALUES IN ('1d') PARTITION BY RANGE ("time");

CREATE TABLE "features" (
    "series_id" INTEGER NOT NULL,
    "timeframe" TEXT NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "rsi_9" DECIMAL,
    "rsi_14" DECIMAL,
    "rsi_21" DECIMAL,
    "macd" DECIMAL,
    "macd_signal" DECIMAL,
    "macd_histogram" DECIMAL,
    "bb_upper" DECIMAL,
    "bb_middle" DECIMAL,
    "bb_lower" DECIMAL,
    "bb_width" DECIMAL,
    "bb_pct" DECIMAL,
    "atr_14" DECIMAL,
    "vwap_20" DECIMAL,
    "twap_20" DECIMAL,
    "price_vs_vwap_20" DECIMAL,
    "funding_norm" DECIMAL,
    "funding_cumulative_24h" DECIMAL,
    "funding_cumulative_7d" DECIMAL,
    "premium_pct" DECIMAL,
    "premium_zscore" DECIMAL,
    CONSTRAINT "features_pkey" PRIMARY KEY ("series_id", "timeframe", "time")
) PARTITION BY LIST ("timeframe");
CREATE TABLE "features_1m" PARTITION OF "features" FOR VALUES IN ('1m') PARTITION BY RANGE ("time");
CREATE TABLE "features_5m" PARTITION OF "features" FOR VALUES IN ('5m') PARTITION BY RANGE ("time");
CREATE TABLE "features_15m" PARTITION OF "features" FOR VALUES IN ('15m') PARTITION BY RANGE ("time");
CREATE TABLE "features_1h" PARTITION OF "features" FOR VALUES IN ('1h') PARTITION BY RANGE ("time");
CREATE TABLE "features_4h" PARTITION OF "features" FOR VALUES IN ('4h') PARTITION BY RANGE ("time");
CREATE TABLE "features_1d" PARTITION OF "features" FOR VALUES IN ('1d') PARTITION BY RANGE ("time");
CREATE TABLE "features_funding" PARTITION OF "features" FOR VALUES IN ('funding') PARTITION BY RANGE ("time");

-- The stored rows: partitions for each timeframe's span, then the rows, in key order.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT timeframe, min(time) AS lo, max(time) AS hi FROM candles_unpartitioned GROUP BY timeframe LOOP
        PERFORM mds_ensure_partitions(r.timeframe, r.lo, r.hi);
    END LOOP;
    FOR r IN SELECT timeframe, min(time) AS lo, max(time) AS hi FROM features_unpartitioned GROUP BY timeframe LOOP
        PERFORM mds_ensure_partitions(r.timeframe, r.lo, r.hi);
    END LOOP;
END $$;

INSERT INTO "candles" ("series_id", "timeframe", "time", "open", "high", "low", "close", "volume", "derived")
SELECT "series_id", "timeframe", "time", "open", "high", "low", "close", "volume", "derived"
FROM "candles_unpartitioned" ORDER BY "series_id", "timeframe", "time";

INSERT INTO "features" ("series_id", "timeframe", "time", "rsi_9", "rsi_14", "rsi_21", "macd", "macd_signal", "macd_histogram",
    "bb_upper", "bb_middle", "bb_lower", "bb_width", "bb_pct", "atr_14", "vwap_20", "twap_20", "price_vs_vwap_20",
    "funding_norm", "funding_cumulative_24h", "funding_cumulative_7d", "premium_pct", "premium_zscore")
SELECT "series_id", "timeframe", "time", "rsi_9", "rsi_14", "rsi_21", "macd", "macd_signal", "macd_histogram",
    "bb_upper", "bb_middle", "bb_lower", "bb_width", "bb_pct", "atr_14", "vwap_20", "twap_20", "price_vs_vwap_20",
    "funding_norm", "funding_cumulative_24h", "funding_cumulative_7d", "premium_pct", "premium_zscore"
FROM "features_unpartitioned" ORDER BY "series_id", "timeframe", "time";

DROP TABLE "candles_unpartitioned";
DROP TABLE "features_unpartitioned";

-- Planner statistics for the new tables (PGlite never auto-analyzes).
ANALYZE "candles";
ANALYZE "features";
