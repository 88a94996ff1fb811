/**
 * A first import rolls up and computes features from the rows it kept in memory (ImportedBars);
 * every stored candle and feature must equal what the database path (SQL rollups, features
 * read back) stores for the same file.
 */
import { csvFile } from '../helpers/csv';
import { TECHNICAL_FEATURES } from '../../src/domain/feature-catalogue';
import { databaseCases, useServices } from '../helpers/databases';

const T0 = Date.UTC(2023, 2, 1);
const MINUTE = 60_000;
const MINUTES = 9_000;
/** In the middle of the last day: its buckets of 1d (and the last 4h, 1h) are still open. */
const NOW = T0 + (MINUTES - 700) * MINUTE;

/**
 * 1m rows with gaps, prices of 0 to 4 decimals written with trailing zeros, volumes of mixed
 * scales (their sums keep the largest), ties of highs and lows within buckets, and lines the
 * general parser reads (an exponent, a leading zero).
 */
function lines(): string[] {
  const rows = ['time,open,high,low,close,volume'];
  for (let m = 0; m < MINUTES; m++) {
    if (m % 97 === 5 || (m > 3000 && m < 3100)) continue;
    const c = 100 + 10 * Math.sin(m / 50) + (m % 7) / 3;
    const o = 100 + 10 * Math.sin((m - 1) / 50) + ((m + 6) % 7) / 3;
    const places = m % 5;
    const hi = m % 11 === 0 ? 120 : Math.max(o, c) + 0.25;
    const lo = m % 13 === 0 ? 80 : Math.min(o, c) - 0.25;
    const volume = m % 3 === 0 ? String(m % 9) : (((m * 7) % 1000) / 10 ** (m % 6)).toFixed(m % 6);
    const open = m % 17 === 0 ? `${o.toFixed(places)}e0` : m % 19 === 0 ? `0${o.toFixed(places)}` : o.toFixed(places);
    rows.push(`${new Date(T0 + m * MINUTE).toISOString()},${open},${hi.toFixed(places)}${places > 0 ? '0' : ''},${lo.toFixed(places)},${c.toFixed(places)},${volume}`);
  }
  return rows;
}

describe.each(databaseCases())('a first import from memory on $name', (kase) => {
  const services = useServices(kase);

  const candles = (id: number) =>
    services().store.db.query<{ r: string }>(
      `SELECT concat_ws(',', timeframe, time, open, high, low, close, volume, derived, quote_volume, trades) AS r
       FROM candles WHERE series_id = $1 ORDER BY timeframe, time`,
      [id],
    );
  const features = (id: number) =>
    services().store.db.query<{ r: string }>(
      `SELECT concat_ws(',', timeframe, time, ${TECHNICAL_FEATURES.join(', ')}) AS r FROM features WHERE series_id = $1 ORDER BY timeframe, time`,
      [id],
    );

  it('when a file is imported into a new series, then its rollups and features equal those of the database path', async () => {
    const file = csvFile(lines());
    const kept = await services().importer.importCandles({ exchange: 'spot', symbol: 'MEM-USDT' }, '1m', file);
    expect(kept.bars).toBeDefined();
    await services().recompute.afterCandlesChanged(kept.seriesId, '1m', kept.from!, kept.to!, NOW, kept.bars);
    const read = await services().importer.importCandles({ exchange: 'spot', symbol: 'SQL-USDT' }, '1m', file);
    await services().recompute.afterCandlesChanged(read.seriesId, '1m', read.from!, read.to!, NOW);

    const fromMemory = await candles(kept.seriesId);
    const fromDatabase = await candles(read.seriesId);
    expect(new Set(fromMemory.map((c) => c.r.split(',')[0]))).toEqual(new Set(['1m', '5m', '15m', '1h', '4h', '1d']));
    expect(fromMemory).toEqual(fromDatabase);
    const featuresFromMemory = await features(kept.seriesId);
    expect(featuresFromMemory.length).toBeGreaterThan(MINUTES);
    expect(featuresFromMemory).toEqual(await features(read.seriesId));
  }, 120_000);

  it('when the series already has candles, then nothing is kept and the database path runs', async () => {
    const again = await services().importer.importCandles({ exchange: 'spot', symbol: 'MEM-USDT' }, '1m', csvFile(lines().slice(0, 100)));
    expect(again.bars).toBeUndefined();
  });

  it('when rows are out of time order, then nothing is kept', async () => {
    const [header, ...rows] = lines().slice(0, 50);
    const r = await services().importer.importCandles({ exchange: 'perp', symbol: 'ORDER-USDT' }, '1m', csvFile([header, ...rows.reverse()]));
    expect(r.bars).toBeUndefined();
  });
});
