-- Write watermarks (docs/DECISIONS.md, "Revalidation without reading"): a version per series,
-- timeframe and partition period (mds_partition_period: a month for 1m and 5m, else a year; the
-- funding rates and funding features under timeframe 'funding'), moved by every writer in its
-- own transaction. A page whose watermarks are unchanged has the rows it had, so the ETag sent
-- for it can be answered from a cache without reading them. Versions come from one sequence and
-- are never reused: a moved watermark never takes a value it had before.
CREATE SEQUENCE "watermark_versions";

CREATE TABLE "watermarks" (
    "series_id" INTEGER NOT NULL,
    "timeframe" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "version" BIGINT NOT NULL DEFAULT nextval('watermark_versions'),
    CONSTRAINT "watermarks_pkey" PRIMARY KEY ("series_id", "timeframe", "period_start")
);

-- One row: this database's own id (a cache shared by several databases, Redis, keeps their tags
-- apart) and the version every page includes, moved by `mds watermarks bump` after writes made
-- outside the service.
CREATE TABLE "watermark_epoch" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "database_id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "version" BIGINT NOT NULL DEFAULT nextval('watermark_versions'),
    CONSTRAINT "watermark_epoch_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "watermark_epoch_one_row" CHECK ("id")
);
INSERT INTO "watermark_epoch" DEFAULT VALUES;

-- Move the watermarks of `series_ids` at `timeframe` for every period [from_time, to_time]
-- touches, in key order (two writers meeting on the same rows lock them in the same order).
CREATE FUNCTION mds_move_watermarks(series_ids integer[], timeframe text, from_time timestamptz, to_time timestamptz) RETURNS void
    LANGUAGE sql
    AS $$
INSERT INTO watermarks (series_id, timeframe, period_start, version)
SELECT s.id, timeframe, p.start AT TIME ZONE 'UTC', nextval('watermark_versions')
FROM (SELECT DISTINCT unnest(series_ids) AS id) s
CROSS JOIN generate_series(date_trunc(mds_partition_period(timeframe), from_time AT TIME ZONE 'UTC'),
                           date_trunc(mds_partition_period(timeframe), to_time AT TIME ZONE 'UTC'),
                           ('1 ' || mds_partition_period(timeframe))::interval) AS p(start)
ORDER BY 1, 3
ON CONFLICT (series_id, timeframe, period_start) DO UPDATE SET version = EXCLUDED.version
$$;
