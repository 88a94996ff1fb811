-- A writer creates the partitions of the table it writes only: an import of candles makes no
-- derivatives partitions, and the features' are made when features are written (each DDL
-- costs the server CPU an import competes for). NULL tables: every table of the timeframe, as
-- the three-argument form (kept for processes of the previous release) and the job keeping
-- periods ahead do.
CREATE OR REPLACE FUNCTION mds_ensure_partitions(timeframe text, from_time timestamptz, to_time timestamptz, tables text[]) RETURNS integer
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
            CONTINUE WHEN tables IS NOT NULL AND NOT parent = ANY (tables);
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

CREATE OR REPLACE FUNCTION mds_ensure_partitions(timeframe text, from_time timestamptz, to_time timestamptz) RETURNS integer
    LANGUAGE sql
    AS $$ SELECT mds_ensure_partitions(timeframe, from_time, to_time, NULL) $$;
