/**
 * Migrations, CSV import and rollups against real PostgreSQL engines (the demo seed:
 * demo-seed.test.ts).
 */
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../src/db/migrator';
import type { Services } from '../../src/composition';
import { csvFile } from '../helpers/csv';
import { databaseCases } from '../helpers/databases';

const H = 'time,open,high,low,close,volume';
const T0 = Date.UTC(2024, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const NOW = Date.UTC(2024, 0, 2);

async function candles(s: Services, tf: string) {
  return s.store.db.query<{ time: Date; open: string; high: string; low: string; close: string; volume: string; derived: boolean }>(
    `SELECT time, open::text, high::text, low::text, close::text, volume::text, derived FROM candles c
     JOIN series s ON s.id = c.series_id WHERE s.symbol = 'BTC-USDT' AND c.timeframe = $1 ORDER BY time`,
    [tf],
  );
}

/** Sixty 1m candles from T0 with known values: open i+100, high i+101, low i+99, close i+100.5, volume 1.5. */
function minuteRows(n = 60): string[] {
  return Array.from({ length: n }, (_, i) => `${iso(T0 + i * 60_000)},${i + 100},${i + 101},${i + 99},${i + 100.5},1.5`);
}

describe.each(databaseCases())('storage on $name', (kase) => {
  let s: Services;
  beforeAll(async () => {
    s = await kase.open();
  });
  afterAll(async () => {
    await s?.close();
    await kase.cleanup();
  });

  it('when migrations run twice, then the second run applies nothing and history is recorded', async () => {
    expect(await migrate(s.store.db)).toEqual([]);
    const rows = await s.store.db.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM _prisma_migrations ORDER BY migration_name',
    );
    const files = await readMigrations(MIGRATIONS_DIR);
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(files.map((f) => [f.name, f.checksum]));
  });

  it('when migrations run from several callers at once, then each applies at most once', async () => {
    const results = await Promise.all([migrate(s.store.db), migrate(s.store.db), migrate(s.store.db)]);
    expect(results.flat()).toEqual([]);
  });

  it('when a candle CSV is imported, then rows are stored exactly and coarser timeframes are rolled up', async () => {
    const file = csvFile([H, ...minuteRows()]);
    const r = await s.importer.importCandles({ exchange: 'perp', symbol: 'BTC-USDT' }, '1m', file);
    expect(r).toMatchObject({ rows: 60, from: T0, to: T0 + 59 * 60_000 });
    await s.recompute.afterCandlesChanged(r.seriesId, '1m', r.from!, r.to!, NOW);
    const m = await candles(s, '1m');
    expect(m).toHaveLength(60);
    expect(m[3]).toMatchObject({ open: '103', high: '104', low: '102', close: '103.5', volume: '1.5', derived: false });
    // Hand-computed 5m bucket 00:05-00:10 from minutes 5..9.
    const five = await candles(s, '5m');
    expect(five).toHaveLength(12);
    expect(five[1]).toMatchObject({ open: '105', high: '110', low: '104', close: '109.5', volume: '7.5', derived: true });
    const hour = await candles(s, '1h');
    expect(hour).toEqual([
      expect.objectContaining({ open: '100', high: '160', low: '99', close: '159.5', volume: '90.0', derived: true }),
    ]);
    // 4h and 1d buckets contain that hour and have closed at NOW.
    expect(await candles(s, '4h')).toHaveLength(1);
    expect((await candles(s, '1d'))[0]).toMatchObject({ open: '100', close: '159.5', volume: '90.0' });
  });

  it('when the same file is imported again, then nothing changes (idempotent upsert)', async () => {
    const file = csvFile([H, ...minuteRows()]);
    const before = await candles(s, '1m');
    await s.importer.importCandles({ exchange: 'perp', symbol: 'BTC-USDT' }, '1m', file);
    expect(await candles(s, '1m')).toEqual(before);
  });

  it('when a re-import changes a value and repeats a time, then the last row of the file wins', async () => {
    const file = csvFile([H, `${iso(T0)},100,200,99,100.5,1.5`, `${iso(T0)},100,101,99,100.5,2.5`]);
    await s.importer.importCandles({ exchange: 'perp', symbol: 'BTC-USDT' }, '1m', file);
    expect((await candles(s, '1m'))[0]).toMatchObject({ high: '101', volume: '2.5' });
  });

  it('when one row is bad, then the file is rejected with file:line and nothing of it is written', async () => {
    const rows = minuteRows(5000).map((l) => l.replace(/^2024-01-01/, '2024-01-05'));
    rows[4000] = `${iso(Date.UTC(2024, 0, 5) + 4000 * 60_000)},10,9,8,10,1`;
    const file = csvFile([H, ...rows]);
    await expect(s.importer.importCandles({ exchange: 'spot', symbol: 'ETH-USDT' }, '1m', file)).rejects.toThrow(
      `${file}:4002: high is below open or close`,
    );
    const n = await s.store.db.query<{ n: number }>(
      "SELECT count(*)::int8 AS n FROM candles WHERE time >= '2024-01-05'",
    );
    expect(n[0].n).toBe(0);
    expect(await s.store.db.query("SELECT 1 FROM series WHERE symbol = 'ETH-USDT'")).toHaveLength(0);
  });

  it('when a 1h candle is imported directly, then it wins over the derived one and is not overwritten by rollups', async () => {
    const file = csvFile([H, `${iso(T0)},100,170,90,150,10`]);
    const r = await s.importer.importCandles({ exchange: 'perp', symbol: 'BTC-USDT' }, '1h', file);
    await s.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, NOW);
    await s.recompute.recomputeAll(NOW);
    expect(await candles(s, '1h')).toEqual([expect.objectContaining({ high: '170', derived: false })]);
    expect((await candles(s, '1d'))[0]).toMatchObject({ high: '170', low: '90', close: '150' });
  });

  it('when a bucket has not closed yet, then no derived candle is written for it', async () => {
    const day = Date.UTC(2024, 2, 1);
    const rows = Array.from({ length: 10 }, (_, i) => `${iso(day + i * 60_000)},1,1,1,1,1`);
    const r = await s.importer.importCandles({ exchange: 'spot', symbol: 'XRP-USDT' }, '1m', csvFile([H, ...rows]));
    await s.recompute.afterCandlesChanged(r.seriesId, '1m', r.from!, r.to!, day + 7 * 60_000);
    const tfs = await s.store.db.query<{ timeframe: string; n: number }>(
      `SELECT timeframe, count(*)::int8 AS n FROM candles WHERE series_id = $1 GROUP BY timeframe ORDER BY timeframe`,
      [r.seriesId],
    );
    // Only the 00:00-00:05 bucket has closed at 00:07.
    expect(tfs).toEqual([
      { timeframe: '1m', n: 10 },
      { timeframe: '5m', n: 1 },
    ]);
  });

  it('when funding is imported, then rates are exact; the spot venue and bad rows are refused', async () => {
    const ok = csvFile(['time,rate', `${iso(T0)},0.0001`, `${T0 + 3_600_000},-1.25e-05`]);
    const r = await s.importer.importFunding({ exchange: 'perp', symbol: 'BTC-USDT' }, ok);
    expect(r.rows).toBe(2);
    const rates = await s.store.db.query<{ rate: string }>('SELECT rate::text FROM funding_rates WHERE series_id = $1 ORDER BY time', [
      r.seriesId,
    ]);
    expect(rates.map((x) => x.rate)).toEqual(['0.0001', '-0.0000125']);
    await expect(s.importer.importFunding({ exchange: 'spot', symbol: 'BTC-USDT' }, ok)).rejects.toThrow(/spot venue has no funding/);
    const bad = csvFile(['time,rate', `${iso(T0 + 30 * 60_000)},0.0001`]);
    await expect(s.importer.importFunding({ exchange: 'perp', symbol: 'BTC-USDT' }, bad)).rejects.toThrow(`${bad}:2:`);
  });

  it('when a file has the wrong header or is empty, then it is rejected', async () => {
    await expect(
      s.importer.importCandles({ exchange: 'perp', symbol: 'BTC-USDT' }, '1m', csvFile(['time,o,h,l,c,v'])),
    ).rejects.toThrow(/:1: header must be/);
    await expect(s.importer.importCandles({ exchange: 'perp', symbol: 'BTC-USDT' }, '1m', csvFile(['']))).rejects.toThrow(
      /empty file/,
    );
    await expect(s.importer.importCandles({ exchange: 'perp', symbol: 'NEW-USDT' }, '1m', csvFile([H]))).rejects.toThrow(
      /no data rows/,
    );
    expect(await s.store.db.query("SELECT 1 FROM series WHERE symbol = 'NEW-USDT'")).toHaveLength(0);
  });
});
