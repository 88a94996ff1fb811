-- The perpetual's context per minute (derivatives) and the trade flow the venues send with
-- each candle (docs/ARCHITECTURE.md, Storage model).

-- Trade flow: NULL where a venue or an import does not give it. Added to the partitioned
-- table, so every partition has the columns (no rewrite: nullable, no default).
ALTER TABLE "candles"
    ADD COLUMN "quote_volume" DECIMAL,
    ADD COLUMN "trades" BIGINT,
    ADD COLUMN "taker_buy_volume" DECIMAL,
    ADD COLUMN "taker_buy_quote_volume" DECIMAL;

-- The perpetual context per minute (and its rollups): open interest as open/high/low/close of
-- the updates seen in the minute, the other values as the last one. Partitioned like candles.
CREATE TABLE "derivatives" (
    "series_id" INTEGER NOT NULL,
    "timeframe" TEXT NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "open_interest_open" DECIMAL NOT NULL,
    "open_interest_high" DECIMAL NOT NULL,
    "open_interest_low" DECIMAL NOT NULL,
    "open_interest" DECIMAL NOT NULL,
    "mark_price" DECIMAL NOT NULL,
    "oracle_price" DECIMAL NOT NULL,
    "mid_price" DECIMAL,
    "predicted_funding_rate" DECIMAL NOT NULL,
    "venue_premium" DECIMAL,
    CONSTRAINT "derivatives_pkey" PRIMARY KEY ("series_id", "timeframe", "time")
) PARTITION BY LIST ("timeframe");
CREATE TABLE "derivatives_1m" PARTITION OF "derivatives" FOR VALUES IN ('1m') PARTITION BY RANGE ("time");
CREATE TABLE "derivatives_5m" PARTITION OF "derivatives" FOR VALUES IN ('5m') PARTITION BY RANGE ("time");
CREATE TABLE "derivatives_15m" PARTITION OF "derivatives" FOR VALUES IN ('15m') PARTITION BY RANGE ("time");
CREATE TABLE "derivatives_1h" PARTITION OF "derivatives" FOR VALUES IN ('1h') PARTITION BY RANGE ("time");
CREATE TABLE "derivatives_4h" PARTITION OF "derivatives" FOR VALUES IN ('4h') PARTITION BY RANGE ("time");
CREATE TABLE "derivatives_1d" PARTITION OF "derivatives" FOR VALUES IN ('1d') PARTITION BY RANGE ("time");

-- As before, with derivatives beside candles for every candle timeframe.
CREATE OR REPLACE FUNCTION mds_ensure_partitions(timeframe text, from_time timestamptz, to_time timestamptz) RETURNS integer
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
        FOREACH parent IN ARRAY CASE WHEN timeframe = 'funding' THEN ARRAY['features'] ELSE ARRAY['candles', 'features', 'derivatives'] END LOOP
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

-- Every period that has candle partitions gets its derivatives partition now: the writers
-- remember which periods exist, and a period known before this migration would lack it.
DO $$
DECLARE
    r record;
    m text[];
    period_start timestamptz;
BEGIN
    FOR r IN SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
             WHERE p.relname IN ('candles_1m', 'candles_5m', 'candles_15m', 'candles_1h', 'candles_4h', 'candles_1d') LOOP
        m := regexp_match(r.name, '^candles_(1m|5m|15m|1h|4h|1d)_(\d{4})(?:_(\d{2}))?$');
        CONTINUE WHEN m IS NULL;
        period_start := make_timestamptz(m[2]::int, coalesce(m[3], '01')::int, 1, 0, 0, 0, 'UTC');
        PERFORM mds_ensure_partitions(m[1], period_start, period_start);
    END LOOP;
END $$;

-- Funding hours a venue does not have are known venue gaps too (asked once, then recorded).
ALTER TABLE "venue_gaps" DROP CONSTRAINT "venue_gaps_timeframe_check";
ALTER TABLE "venue_gaps" ADD CONSTRAINT "venue_gaps_timeframe_check" CHECK ("timeframe" IN ('1m', '5m', '15m', '1h', '4h', '1d', 'funding'));
