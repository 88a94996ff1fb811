/**
 * The incremental recompute after an append (tail + bounded lookback) must serve exactly
 * what a full recompute over the whole history serves.
 */
import { csvFile } from '../helpers/csv';
import { FeaturePrecomputeService } from '../../src/services/feature-precompute.service';
import { storageCases, useServices } from '../helpers/databases';

const T0 = Date.UTC(2023, 0, 1);
const HOUR = 3_600_000;
const NOW = T0 + 3000 * HOUR;

function candles(from: number, to: number): string[] {
  const rows = ['time,open,high,low,close,volume'];
  for (let h = from; h < to; h++) {
    const c = 100 + 10 * Math.sin(h / 37) + (h % 13) / 7;
    const o = 100 + 10 * Math.sin((h - 1) / 37) + ((h + 12) % 13) / 7;
    rows.push(`${new Date(T0 + h * HOUR).toISOString()},${o.toFixed(4)},${(Math.max(o, c) + 0.5).toFixed(4)},${(Math.min(o, c) - 0.5).toFixed(4)},${c.toFixed(4)},${(h % 5) + 1}`);
  }
  return rows;
}

describe.each(storageCases())('incremental features on $name', (kase) => {
  const services = useServices(kase);

  const read = () =>
    services().store.db.query<Record<string, string | null>>(
      `SELECT round(rsi_21::numeric, 6)::text AS rsi, round(macd_signal::numeric, 6)::text AS sig, round(atr_14::numeric, 6)::text AS atr,
              round(bb_pct::numeric, 6)::text AS pct FROM features WHERE timeframe = '1h' ORDER BY time`,
    );

  it('when 60 candles are appended to 2,000, then the recomputed tail equals a full recompute', async () => {
    const first = await services().importer.importCandles({ exchange: 'spot', symbol: 'INC-USDT' }, '1h', csvFile(candles(0, 2000)));
    await services().recompute.afterCandlesChanged(first.seriesId, '1h', first.from!, first.to!, NOW);
    const next = await services().importer.importCandles({ exchange: 'spot', symbol: 'INC-USDT' }, '1h', csvFile(candles(2000, 2060)));
    await services().recompute.afterCandlesChanged(next.seriesId, '1h', next.from!, next.to!, NOW);
    const incremental = await read();
    expect(incremental).toHaveLength(2060);
    await services().recompute.recomputeAll(NOW);
    expect(await read()).toEqual(incremental);
  }, 60_000);

  it('when a long history is computed in chunks, then it equals the computation in one piece', async () => {
    const [{ id }] = await services().store.db.query<{ id: number }>("SELECT id FROM series WHERE symbol = 'INC-USDT'");
    const whole = await read();
    await services().store.db.query('DELETE FROM features WHERE series_id = $1', [id]);
    await new FeaturePrecomputeService(services().store, services().venues, 300).technical(id, '1h', null);
    expect(await read()).toEqual(whole);
  }, 60_000);
});
