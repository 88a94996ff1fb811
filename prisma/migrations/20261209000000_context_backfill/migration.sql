-- A context backfill fills what the venue keeps (docs/DECISIONS.md, "Context backfill"): Binance
-- USD-M's mark, index and premium minute klines, and open interest only as a 5-minute history.
-- Open interest and the predicted funding rate of such a minute are unknown: those columns
-- become nullable. Recorded minutes keep every value.
ALTER TABLE derivatives
  ALTER COLUMN open_interest_open DROP NOT NULL,
  ALTER COLUMN open_interest_high DROP NOT NULL,
  ALTER COLUMN open_interest_low DROP NOT NULL,
  ALTER COLUMN open_interest DROP NOT NULL,
  ALTER COLUMN predicted_funding_rate DROP NOT NULL;
