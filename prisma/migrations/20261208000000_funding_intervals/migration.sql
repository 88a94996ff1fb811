-- A funding row is one settlement; venues settle every 1, 4 or 8 hours (docs/DECISIONS.md,
-- "Funding intervals"). interval_hours is the hours since the series' previous settlement, at
-- most its venue's longest interval (a longer distance is a gap: the row keeps the interval
-- before it). Every row stored so far is Hyperliquid's, hourly.
ALTER TABLE funding_rates ADD COLUMN interval_hours smallint NOT NULL DEFAULT 1;
