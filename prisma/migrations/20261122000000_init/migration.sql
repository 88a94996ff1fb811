-- Initial schema. Mirrors prisma/schema.prisma; the service's migrator applies this file
-- (recording it in _prisma_migrations as `prisma migrate deploy` would).

CREATE TABLE "series" (
    "id" SERIAL NOT NULL,
    "exchange" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    CONSTRAINT "series_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "series_exchange_symbol_key" ON "series"("exchange", "symbol");

-- Candles of every timeframe; the primary key is also the index of the hot read
-- (one series, one timeframe, a time range).
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
    CONSTRAINT "candles_pkey" PRIMARY KEY ("series_id", "timeframe", "time"),
    CONSTRAINT "candles_timeframe_check" CHECK ("timeframe" IN ('1m', '5m', '15m', '1h', '4h', '1d'))
);

CREATE TABLE "funding_rates" (
    "series_id" INTEGER NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "rate" DECIMAL NOT NULL,
    CONSTRAINT "funding_rates_pkey" PRIMARY KEY ("series_id", "time")
);

CREATE TABLE "features" (
    "series_id" INTEGER NOT NULL,
    "timeframe" TEXT NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "rsi_9" DOUBLE PRECISION,
    "rsi_14" DOUBLE PRECISION,
    "rsi_21" DOUBLE PRECISION,
    "macd" DOUBLE PRECISION,
    "macd_signal" DOUBLE PRECISION,
    "macd_histogram" DOUBLE PRECISION,
    "bb_upper" DOUBLE PRECISION,
    "bb_middle" DOUBLE PRECISION,
    "bb_lower" DOUBLE PRECISION,
    "bb_width" DOUBLE PRECISION,
    "bb_pct" DOUBLE PRECISION,
    "atr_14" DOUBLE PRECISION,
    "vwap_20" DOUBLE PRECISION,
    "twap_20" DOUBLE PRECISION,
    "price_vs_vwap_20" DOUBLE PRECISION,
    "funding_norm" DOUBLE PRECISION,
    "funding_cumulative_24h" DOUBLE PRECISION,
    "funding_cumulative_7d" DOUBLE PRECISION,
    "premium_pct" DOUBLE PRECISION,
    "premium_zscore" DOUBLE PRECISION,
    CONSTRAINT "features_pkey" PRIMARY KEY ("series_id", "timeframe", "time"),
    CONSTRAINT "features_timeframe_check" CHECK ("timeframe" IN ('1m', '5m', '15m', '1h', '4h', '1d', 'funding'))
);

CREATE TABLE "quality" (
    "series_id" INTEGER NOT NULL,
    "timeframe" TEXT NOT NULL,
    "computed_at" TIMESTAMPTZ(3) NOT NULL,
    "dqs" DOUBLE PRECISION NOT NULL,
    "gap_rate_score" DOUBLE PRECISION NOT NULL,
    "anomaly_score" DOUBLE PRECISION NOT NULL,
    "consistency_score" DOUBLE PRECISION NOT NULL,
    "freshness_score" DOUBLE PRECISION NOT NULL,
    "expected_candles" INTEGER NOT NULL,
    "present_candles" INTEGER NOT NULL,
    "missing_intervals" JSONB NOT NULL,
    CONSTRAINT "quality_pkey" PRIMARY KEY ("series_id", "timeframe")
);

CREATE TABLE "api_keys" (
    "key_hash" TEXT NOT NULL,
    "key_hint" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "tier" TEXT NOT NULL,
    "label" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("key_hash"),
    CONSTRAINT "api_keys_tier_check" CHECK ("tier" IN ('free', 'pro', 'scale'))
);
CREATE INDEX "api_keys_user_id_created_at_idx" ON "api_keys"("user_id", "created_at");

ALTER TABLE "candles" ADD CONSTRAINT "candles_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "funding_rates" ADD CONSTRAINT "funding_rates_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "features" ADD CONSTRAINT "features_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "quality" ADD CONSTRAINT "quality_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "series"("id") ON DELETE CASCADE ON UPDATE CASCADE;
