-- Ingestion from the venues.

-- Candle slots a venue does not have (older than what it serves, or never traded): they count
-- as missing in the quality score and gap repair never asks the venue for them again.
CREATE TABLE "venue_gaps" (
    "series_id" INTEGER NOT NULL,
    "timeframe" TEXT NOT NULL,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "venue_gaps_pkey" PRIMARY KEY ("series_id", "timeframe", "start_time"),
    CONSTRAINT "venue_gaps_span_check" CHECK ("end_time" > "start_time"),
    CONSTRAINT "venue_gaps_timeframe_check" CHECK ("timeframe" IN ('1m', '5m', '15m', '1h', '4h', '1d'))
);
ALTER TABLE "venue_gaps" ADD CONSTRAINT "venue_gaps_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What the ingesting process reports about each series it follows, every few seconds, so any
-- replica can serve Market.ingest: whether its venue socket is connected, and when it said so.
CREATE TABLE "ingest_status" (
    "series_id" INTEGER NOT NULL,
    "connected" BOOLEAN NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "ingest_status_pkey" PRIMARY KEY ("series_id")
);
ALTER TABLE "ingest_status" ADD CONSTRAINT "ingest_status_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;
