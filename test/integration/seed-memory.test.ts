/**
 * The demo seed of an empty database rolls up and computes features from the bars it generated
 * (as a first import does); a second seed of the same data takes the database path (SQL
 * rollups over what is stored, features read back). Both must store the same candles and
 * features, so the second seed changes nothing.
 */
import { CandlesRepository } from '../../src/db/candles.repository';
import { TECHNICAL_FEATURES } from '../../src/domain/feature-catalogue';
import { databaseCases, useServices } from '../helpers/databases';

/** In the middle of a day and of an hour: the current 1h, 4h and 1d buckets are still open. */
const NOW = Date.UTC(2024, 5, 12, 13, 37, 20);

describe.each(databaseCases())('the demo seed from memory on $name', (kase) => {
  const services = useServices(kase);

  const stored = async () => ({
    candles: await services().store.db.query<{ r: string }>(
      `SELECT concat_ws(',', series_id, timeframe, time, open, high, low, close, volume, derived, quote_volume, trades) AS r
       FROM candles ORDER BY series_id, timeframe, time`,
    ),
    features: await services().store.db.query<{ r: string }>(
      `SELECT concat_ws(',', series_id, timeframe, time, ${TECHNICAL_FEATURES.join(', ')}) AS r FROM features ORDER BY series_id, timeframe, time`,
    ),
  });

  it('when an empty database is seeded, then its rollups and features equal those a re-seed computes by the database path', async () => {
    const fromMemoryWrites = jest.spyOn(CandlesRepository.prototype, 'insertRollups');
    const first = await services().seeder.seed(NOW);
    // Every series' five rolled-up timeframes written from memory.
    expect(fromMemoryWrites).toHaveBeenCalledTimes(first.series * 5);
    fromMemoryWrites.mockClear();
    const fromMemory = await stored();
    expect(new Set(fromMemory.candles.map((c) => c.r.split(',')[1]))).toEqual(new Set(['1m', '5m', '15m', '1h', '4h', '1d']));
    // Every technical row the summary counts, and the funding features beside them.
    expect(fromMemory.features.filter((f) => f.r.split(',')[1] !== 'funding').length).toBe(first.featureRows);
    const again = await services().seeder.seed(NOW);
    expect(fromMemoryWrites).not.toHaveBeenCalled();
    fromMemoryWrites.mockRestore();
    expect(again.featureRows).toBe(first.featureRows);
    const fromDatabase = await stored();
    expect(fromDatabase.candles.length).toBe(fromMemory.candles.length);
    expect(fromDatabase.candles).toEqual(fromMemory.candles);
    expect(fromDatabase.features).toEqual(fromMemory.features);
  }, 180_000);
});
