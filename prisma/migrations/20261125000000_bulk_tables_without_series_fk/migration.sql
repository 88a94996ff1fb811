-- candles and features reference series without a foreign key (docs/DECISIONS.md, Storage):
-- PostgreSQL checked the key for every row written, about 7 s of server CPU per million 1m
-- candles imported with their features (bench/README.md, Import). Every writer ensures the
-- series in the same transaction, and the service never deletes one.
ALTER TABLE "candles" DROP CONSTRAINT "candles_series_id_fkey";
ALTER TABLE "features" DROP CONSTRAINT "features_series_id_fkey";
