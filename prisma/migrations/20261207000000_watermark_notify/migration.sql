-- Every move of a watermark is also announced on the channel `mds_watermarks` when its
-- transaction commits (NOTIFY is transactional): `<timeframe>:<series ids>`, or `*` when too
-- many series move at once for one message. Gateways keep small pages in memory while they
-- listen (docs/DECISIONS.md, "Small pages from memory").
CREATE OR REPLACE FUNCTION mds_move_watermarks(series_ids integer[], timeframe text, from_time timestamptz, to_time timestamptz) RETURNS void
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
BEGIN
INSERT INTO watermarks (series_id, timeframe, period_start, version)
SELECT s.id, $2, p.start AT TIME ZONE 'UTC', nextval('watermark_versions')
FROM (SELECT DISTINCT unnest($1) AS id) s
CROSS JOIN generate_series(date_trunc(mds_partition_period($2), $3 AT TIME ZONE 'UTC'),
                           date_trunc(mds_partition_period($2), $4 AT TIME ZONE 'UTC'),
                           ('1 ' || mds_partition_period($2))::interval) AS p(start)
ORDER BY 1, 3
ON CONFLICT (series_id, timeframe, period_start) DO UPDATE SET version = EXCLUDED.version;
PERFORM pg_notify('mds_watermarks', CASE WHEN cardinality($1) > 500 THEN '*' ELSE $2 || ':' || array_to_string($1, ',') END);
END
$$;
