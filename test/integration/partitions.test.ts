/**
 * Time partitions of candles, features and derivatives (migrations 20261126000000_time_partitions,
 * 20261127000000_derivatives_trade_flow and 20261128000002_partitions_per_table, src/db/partitions.ts,
 * src/services/partition.service.ts), on PGlite and on PostgreSQL: writers create the partitions of
 * the table they write in, the job keeps periods ahead, retention drops whole partitions of every
 * table and leaves the coarser rollups, and a database of a previous schema migrates in place
 * without losing a row.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../../src/db/database';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrator';
import { openDatabase } from '../../src/db/open-database';
import { Partitions, PARTITION_PERIOD } from '../../src/db/partitions';
import { PartitionService } from '../../src/services/runtime/partition.service';
import { FEATURE_TIMEFRAMES } from '../../src/domain/timeframe';
import { databaseCases, useServices } from '../helpers/databases';

const DAY = 86_400_000;
const MIN = 60_000;

/** `time,open,high,low,close,volume` lines of 1m candles every `stepMin` minutes over [fromMs, toMs). */
function candleCsv(fromMs: number, toMs: number, stepMin = 1): string {
  const lines = ['time,open,high,low,close,volume'];
  let price = 100;
  for (let t = fromMs; t < toMs; t += stepMin * MIN) {
    const next = price + (((t / MIN) % 7) - 3) * 0.01;
    lines.push(`${t},${price.toFixed(2)},${(Math.max(price, next) + 0.05).toFixed(2)},${(Math.min(price, next) - 0.05).toFixed(2)},${next.toFixed(2)},1.5`);
    price = next;
  }
  return lines.join('\n') + '\n';
}

describe.each(databaseCases())('time partitions on $name', (kase) => {
  const services = useServices(kase);
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mds-partitions-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function importMinutes(symbol: string, fromMs: number, toMs: number, stepMin = 1) {
    const s = services();
    const file = path.join(dir, `${symbol}.csv`);
    writeFileSync(file, candleCsv(fromMs, toMs, stepMin));
    const r = await s.importer.importCandles({ exchange: 'perp', symbol }, '1m', file);
    await s.recompute.afterCandlesChanged(r.seriesId, '1m', r.from!, r.to!, Date.now());
    return r.seriesId;
  }

  const names = async () => (await services().store.partitions.list()).map((p) => p.name);

  it('when 1m candles spanning three months are imported, then candles and features have a monthly 1m partition for each month and yearly ones for the rollups, and derivatives none', async () => {
    const id = await importMinutes('PART-USDT', Date.UTC(2023, 10, 30), Date.UTC(2024, 1, 1, 1), 10);
    const list = await names();
    for (const t of ['candles', 'features']) {
      expect(list).toEqual(expect.arrayContaining([`${t}_1m_2023_11`, `${t}_1m_2023_12`, `${t}_1m_2024_01`, `${t}_1m_2024_02`]));
      expect(list).toEqual(expect.arrayContaining([`${t}_1h_2023`, `${t}_1h_2024`, `${t}_1d_2023`, `${t}_5m_2024_01`]));
    }
    expect(list.filter((n) => /^derivatives_(1m_2023_1[12]|1h_2023)$/.test(n))).toEqual([]);
    const [counts] = await services().store.db.query<{ m: number; h: number }>(
      `SELECT (SELECT count(*)::int FROM candles WHERE series_id = $1 AND timeframe = '1m') AS m,
              (SELECT count(*)::int FROM candles_1h_2024 WHERE series_id = $1) AS h`,
      [id],
    );
    expect(counts).toEqual({ m: (Date.UTC(2024, 1, 1, 1) - Date.UTC(2023, 10, 30)) / (10 * MIN), h: 31 * 24 + 1 });
  });

  it('when a file is out of time order beyond its first and last rows, then the import still stores every row', async () => {
    const s = services();
    const file = path.join(dir, 'UNSORTED-USDT.csv');
    const jan = Date.UTC(2024, 0, 10);
    const far = Date.UTC(2018, 6, 1); // a partition nothing else creates
    writeFileSync(file, `time,open,high,low,close,volume\n${jan},1,2,0.5,1.5,1\n${far},1,2,0.5,1.5,1\n${jan + MIN},1,2,0.5,1.5,1\n`);
    const r = await s.importer.importCandles({ exchange: 'perp', symbol: 'UNSORTED-USDT' }, '1m', file);
    expect({ rows: r.rows, from: r.from, to: r.to }).toEqual({ rows: 3, from: far, to: jan + MIN });
    const [{ n }] = await s.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM candles WHERE series_id = $1`, [r.seriesId]);
    expect(n).toBe(3);
    // A writer makes its own table's partitions: features' come when features are written.
    expect(await names()).toContain('candles_1m_2018_07');
    expect(await names()).not.toContain('features_1m_2018_07');
  });

  it('when the partition job runs, then the current period and the next two exist for every timeframe, in every table, and a second run creates none', async () => {
    const now = Date.now();
    const job = new PartitionService(services().store.partitions, services().store.locks, {});
    await job.run(now);
    const list = await services().store.partitions.list();
    for (const tf of FEATURE_TIMEFRAMES) {
      for (const table of tf === 'funding' ? ['features'] : ['candles', 'features', 'derivatives']) {
        const ahead = list.filter((p) => p.table === table && p.timeframe === tf && p.endMs > now);
        expect({ tf, table, periods: ahead.length }).toEqual({ tf, table, periods: 3 });
        expect(ahead[0].startMs).toBeLessThanOrEqual(now);
      }
    }
    expect((await job.run(now)).created).toBe(0);
  });

  it('when RETENTION_1M is 30 days and the job runs, then the 1m partitions of every table that ended before are dropped, the rollups stay, and /v1/markets coverage moves', async () => {
    const now = Date.now();
    const start = Math.floor((now - 75 * DAY) / MIN) * MIN;
    const id = await importMinutes('KEEP-USDT', start, now - DAY, 30);
    const s = services();
    const before = await s.store.candles.coverage([id], new Date(now));
    const first1m = before.find((c) => c.timeframe === '1m')!.first;
    const hours = await s.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM candles WHERE series_id = $1 AND timeframe = '1h'`, [id]);

    const cutoff = now - 30 * DAY;
    const expected = (await s.store.partitions.list()).filter((p) => p.timeframe === '1m' && p.endMs <= cutoff).map((p) => p.name);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    const out = await new PartitionService(s.store.partitions, s.store.locks, { '1m': 30 * DAY }).run(now);
    expect(out.dropped.sort()).toEqual(expected.sort());
    expect(out.dropped.some((n) => n.startsWith('features_'))).toBe(true);
    // No table keeps a 1m partition that ended before the cutoff.
    expect((await s.store.partitions.list()).filter((p) => p.timeframe === '1m' && p.endMs <= cutoff)).toEqual([]);

    const after = await s.store.candles.coverage([id], new Date(now));
    const moved = after.find((c) => c.timeframe === '1m')!.first;
    expect(Date.parse(moved) > Date.parse(first1m)).toBe(true);
    // Everything before the first 1m partition kept is gone; the first row kept is that partition's first.
    const kept = (await s.store.partitions.list()).filter((p) => p.table === 'candles' && p.timeframe === '1m')[0];
    expect(Date.parse(moved)).toBeGreaterThanOrEqual(kept.startMs);
    expect(after.find((c) => c.timeframe === '1h')).toEqual(before.find((c) => c.timeframe === '1h'));
    const hoursAfter = await s.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM candles WHERE series_id = $1 AND timeframe = '1h'`, [id]);
    expect(hoursAfter).toEqual(hours);
    const [{ n }] = await s.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM features WHERE series_id = $1 AND timeframe = '1m' AND time < $2`, [id, new Date(kept.startMs)]);
    expect(n).toBe(0);
  });

  it('when a retention shorter than 8 days reaches the partitions, then nothing is dropped', async () => {
    await expect(services().store.partitions.dropBefore('1m', Date.now() - 7 * DAY)).rejects.toThrow(/shorter than 8 days/);
  });

  it('when two writers need the same new partition at once, then both write and it is created once', async () => {
    const s = services();
    const t = Date.UTC(2019, 5, 15);
    // On PostgreSQL on two connections: the writers' own (a pool of one) and the API's pool.
    const [viaPool] = await Promise.all([
      s.store.db.query<{ n: number }>('SELECT mds_ensure_partitions($1, $2, $2) AS n', ['1m', new Date(t)]),
      s.store.partitions.ensure([{ timeframe: '1m', fromMs: t, toMs: t }]),
    ]);
    expect(viaPool[0].n).toBeLessThanOrEqual(3);
    expect((await names()).filter((n) => n.endsWith('_1m_2019_06')).sort()).toEqual(['candles_1m_2019_06', 'derivatives_1m_2019_06', 'features_1m_2019_06']);
  });

  it('when the SQL and the code name the period of each timeframe, then they agree', async () => {
    const rows = await services().store.db.query<{ tf: string; period: string }>(
      'SELECT tf, mds_partition_period(tf) AS period FROM unnest($1::text[]) AS tf',
      [[...FEATURE_TIMEFRAMES]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.tf, r.period]))).toEqual(PARTITION_PERIOD);
  });
});

/** The migrations before partitioning, in a directory of their own. */
function migrationsBefore(name: string): string {
  const out = mkdtempSync(path.join(os.tmpdir(), 'mds-migrations-'));
  cpSync(MIGRATIONS_DIR, out, { recursive: true, filter: (src) => path.basename(src) < name || src === MIGRATIONS_DIR || !path.basename(src).match(/^\d{14}_/) });
  return out;
}

describe.each(databaseCases())('the partitioning migration on $name', ({ create }) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  let oldDir: string;
  beforeAll(async () => {
    const fresh = await create();
    drop = fresh?.drop;
    db = await openDatabase({ databaseUrl: fresh?.url, dataDir: 'memory' });
    oldDir = migrationsBefore('20261126000000_time_partitions');
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
    rmSync(oldDir, { recursive: true, force: true });
  });

  const snapshot = async () => ({
    candles: (
      await db.query<{ r: string }>(`SELECT (series_id, timeframe, time, open, high, low, close, volume, derived)::text AS r FROM candles ORDER BY series_id, timeframe, time`)
    ).map((x) => x.r),
    features: (await db.query<{ r: string }>(`SELECT f::text AS r FROM features f ORDER BY series_id, timeframe, time`)).map((x) => x.r),
  });

  it('when a database of the previous schema holds candles and features, then migrating partitions them in place with every row and value kept', async () => {
    expect(await migrate(db, oldDir)).not.toContain('20261126000000_time_partitions');
    await db.exec(`
      INSERT INTO series (exchange, symbol) VALUES ('perp', 'OLD-USDT'), ('spot', 'OLD-USDT');
      INSERT INTO candles SELECT s, '1m', t, 100.123456, 101, 99.5, 100.25, 3.000001, false
        FROM generate_series(1, 2) s, generate_series(timestamptz '2024-01-31 22:00+00', '2024-02-01 02:00+00', interval '1 minute') t;
      INSERT INTO candles SELECT 1, '1h', t, 100.5, 101, 99, 100.25, 60, true FROM generate_series(timestamptz '2023-12-31 20:00+00', '2024-01-01 04:00+00', interval '1 hour') t;
      INSERT INTO candles SELECT 1, '1d', timestamptz '2021-06-01 00:00+00', 1, 2, 0.5, 1.5, 10, false;
      INSERT INTO features (series_id, timeframe, time, rsi_14, bb_pct) SELECT 1, '1m', t, 55.123456, -0.000001 FROM generate_series(timestamptz '2024-01-31 23:00+00', '2024-02-01 01:00+00', interval '1 minute') t;
      INSERT INTO features (series_id, timeframe, time, funding_norm, premium_pct) SELECT 1, 'funding', t, 1.5, NULL FROM generate_series(timestamptz '2022-12-31 22:00+00', '2023-01-01 02:00+00', interval '1 hour') t;
    `);
    const before = await snapshot();
    expect(before.candles.length).toBe(2 * 241 + 9 + 1);
    // Tables the service did not partition (this schema, or a hypertable an operator made): it leaves them alone.
    const unmanaged = new Partitions(db);
    expect(await unmanaged.ensure([{ timeframe: '1m', fromMs: Date.UTC(2024, 0, 1), toMs: Date.UTC(2024, 0, 2) }])).toBe(0);
    expect(await unmanaged.list()).toEqual([]);

    const toPartitions = migrationsBefore('20261127000000_derivatives_trade_flow');
    expect(await migrate(db, toPartitions)).toEqual(['20261126000000_time_partitions']);
    rmSync(toPartitions, { recursive: true, force: true });
    expect(await snapshot()).toEqual(before);
    const parts = await new Partitions(db).list();
    expect(parts.map((p) => p.name).sort()).toEqual(
      [
        'candles_1d_2021',
        'candles_1h_2023',
        'candles_1h_2024',
        'candles_1m_2024_01',
        'candles_1m_2024_02',
        'features_1d_2021',
        'features_1h_2023',
        'features_1h_2024',
        'features_1m_2024_01',
        'features_1m_2024_02',
        'features_funding_2022',
        'features_funding_2023',
      ].sort(),
    );
    const [{ partitioned }] = await db.query<{ partitioned: number }>(
      `SELECT count(*)::int AS partitioned FROM pg_partitioned_table WHERE partrelid IN ('candles'::regclass, 'features'::regclass)`,
    );
    expect(partitioned).toBe(2);
    // The primary key still refuses a duplicate, and upserts still meet it.
    await expect(db.query(`INSERT INTO candles SELECT * FROM candles WHERE timeframe = '1d'`)).rejects.toThrow(/duplicate key/);
    await db.query(`INSERT INTO candles SELECT * FROM candles WHERE timeframe = '1d' ON CONFLICT (series_id, timeframe, time) DO UPDATE SET close = 2`);
    expect((await db.query<{ close: string }>(`SELECT close::text FROM candles WHERE timeframe = '1d'`))[0].close).toBe('2');
  });

  it('when that database migrates to the derivatives schema, then every candle period gets its derivatives partition, rows keep their values and gain null trade flow', async () => {
    const before = await snapshot();
    const toDerivatives = migrationsBefore('20261128000000_watermarks');
    expect(await migrate(db, toDerivatives)).toEqual(['20261127000000_derivatives_trade_flow']);
    rmSync(toDerivatives, { recursive: true, force: true });
    // The watermarks come after, on the same data: new tables and functions only (and columns made nullable).
    expect(await migrate(db)).toEqual(['20261128000000_watermarks', '20261128000001_watermarks_plpgsql', '20261128000002_partitions_per_table', '20261207000000_watermark_notify', '20261208000000_funding_intervals', '20261209000000_context_backfill']);
    expect(await snapshot()).toEqual(before);
    const derivatives = (await new Partitions(db).list()).filter((p) => p.table === 'derivatives').map((p) => p.name);
    expect(derivatives.sort()).toEqual(['derivatives_1d_2021', 'derivatives_1h_2023', 'derivatives_1h_2024', 'derivatives_1m_2024_01', 'derivatives_1m_2024_02']);
    const [flow] = await db.query<{ n: number; nulls: number }>(`SELECT count(*)::int AS n, count(*) FILTER (WHERE trades IS NULL AND quote_volume IS NULL)::int AS nulls FROM candles`);
    expect(flow.nulls).toBe(flow.n);
    // A period known to the writers before the migration can take context rows at once.
    await db.query(`INSERT INTO derivatives VALUES (1, '1m', '2024-02-01 00:00+00', 1, 2, 0.5, 1.5, 100, 100.1, NULL, 0.00001, NULL)`);
    const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM derivatives_1m_2024_02`);
    expect(n).toBe(1);
  });
});
