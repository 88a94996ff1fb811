/**
 * The incremental recompute after an append (tail + bounded lookback) must serve exactly
 * what a full recompute over the whole history serves.
 */
import { csvFile } from '../helpers/csv';
import { openServices } from '../../src/composition';
import { TECHNICAL_FEATURES } from '../../src/domain/feature-catalogue';
import { FeaturePrecomputeService, chunkWritersFor } from '../../src/services/derived/feature-precompute.service';
import { testConfig } from '../helpers/config';
import { databaseCases, useServices, freshPostgres } from '../helpers/databases';
import { describeWith } from '../helpers/requirements';

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

describe.each(databaseCases())('incremental features on $name', (kase) => {
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
    await new FeaturePrecomputeService(services().store, services().exchanges, 300).technical(id, '1h', null);
    expect(await read()).toEqual(whole);
  }, 60_000);

  it('when chunks large enough for COPY are written two at a time, then every stored feature equals the computation in one piece', async () => {
    const [{ id }] = await services().store.db.query<{ id: number }>("SELECT id FROM series WHERE symbol = 'INC-USDT'");
    const rows = () =>
      services().store.db.query<{ r: string }>(
        `SELECT row_to_json(f)::text AS r FROM (SELECT time, ${TECHNICAL_FEATURES.join(', ')} FROM features
         WHERE series_id = $1 AND timeframe = '1h' ORDER BY time) f`,
        [id],
      );
    await services().store.db.query('DELETE FROM features WHERE series_id = $1', [id]);
    await new FeaturePrecomputeService(services().store, services().exchanges, 100_000, 1).technical(id, '1h', null);
    const whole = await rows();
    expect(whole).toHaveLength(2060);
    await services().store.db.query('DELETE FROM features WHERE series_id = $1', [id]);
    // 700 rows of 15 features: past the small-input INSERT, so each chunk is a COPY.
    await new FeaturePrecomputeService(services().store, services().exchanges, 700, 2).technical(id, '1h', null);
    expect(await rows()).toEqual(whole);
  }, 60_000);

  it('when the history is read, then each stored decimal becomes the double Number() makes of its text', async () => {
    const values = ['0.1', '3', '65000.123456789', '1234567890.12345678901', '0.00000000000000000000001', '99999999999999999999', '7.0000000000000001', '0.3'];
    const lines = ['time,open,high,low,close,volume'];
    values.forEach((v, i) => lines.push(`${new Date(T0 + i * HOUR).toISOString()},${v},${v},${v},${v},${values[(i + 3) % values.length]}`));
    const r = await services().importer.importCandles({ exchange: 'perp', symbol: 'NUM-USDT' }, '1h', csvFile(lines));
    const stored = await services().store.db.query<{ t: string; o: string; v: string }>(
      `SELECT (extract(epoch FROM time) * 1000)::bigint::text AS t, open::text AS o, volume::text AS v FROM candles WHERE series_id = $1 ORDER BY time`,
      [r.seriesId],
    );
    const h = await services().store.candles.history(r.seriesId, '1h', null, 1000, 100);
    expect({ time: Array.from(h.time), open: Array.from(h.open), close: Array.from(h.close), volume: Array.from(h.volume) }).toEqual({
      time: stored.map((x) => Number(x.t)),
      open: stored.map((x) => Number(x.o)),
      close: stored.map((x) => Number(x.o)),
      volume: stored.map((x) => Number(x.v)),
    });
  });
});

describeWith('DATABASE_URL', 'the recalculation after an import with a small pool', (serverUrl) => {
  it('when DATABASE_POOL_SIZE is below 8, then one chunk write at a time, one timeframe at a time, and every timeframe gets its features', async () => {
    expect([3, 7, 8, 10].map(chunkWritersFor)).toEqual([1, 1, 2, 2]);
    const db = await freshPostgres(serverUrl);
    const small = await openServices(testConfig({ DATABASE_URL: db.url, DATABASE_POOL_SIZE: '3' }));
    try {
      expect(small.featurePrecompute.writers).toBe(1);
      const r = await small.importer.importCandles({ exchange: 'spot', symbol: 'INC-USDT' }, '1h', csvFile(candles(0, 2060)));
      await small.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, NOW);
      const rows = await small.store.db.query<{ n: string }>("SELECT count(*)::text AS n FROM features WHERE timeframe IN ('1h', '4h', '1d')");
      expect(rows[0].n).toBe(String(2060 + 515 + 86));
    } finally {
      await small.close();
      await db.drop();
    }
  }, 60_000);
});
