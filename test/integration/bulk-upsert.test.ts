/**
 * bulkUpsert with its input in parts (several COPY statements in one savepoint, the input read
 * ahead), on PGlite and on PostgreSQL: every row arrives once and in order; rows colliding in a
 * later part send the whole input through the staging upsert (the last row of a key wins), the
 * first reader closed before the second starts; a source failing in a later part writes nothing.
 * Into a partitioned table: a COPY per run of one leaf's lines, and through the table itself when
 * a line is out of its leaf's order or its leaf is missing.
 */
import { bulkUpsert } from '../../src/db/bulk-upsert';
import { BinaryRows, type ColumnType } from '../../src/encoding/binary-rows';
import type { SqlSession } from '../../src/db/database';
import { leafOf } from '../../src/db/partitions';
import { isMissingPartition } from '../../src/db/pg-errors';
import { databaseCases, useServices } from '../helpers/databases';

const SPEC = { table: 'funding_rates', columns: ['series_id', 'time', 'rate'], key: ['series_id', 'time'] };
const T0 = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;
const PARTS = { chars: 20_000, readAhead: 40_000 };

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** Rate lines for `hours`, in chunks of 100 lines, read as they are asked for; rate = hour + shift. */
function source(seriesId: number, hours: number[], shift: number, log: string[], failAt?: number) {
  return async function* (): AsyncGenerator<string> {
    log.push('open');
    try {
      for (let i = 0; i < hours.length; i += 100) {
        if (failAt !== undefined && i >= failAt) throw new Error('the source failed');
        let chunk = '';
        for (const h of hours.slice(i, i + 100)) chunk += `${seriesId},${new Date(T0 + h * HOUR).toISOString()},${h + shift}\n`;
        yield chunk;
      }
    } finally {
      log.push('closed');
    }
  };
}

/** The session with its COPY statements counted. */
function counting(tx: SqlSession, copies: string[]): SqlSession {
  return {
    query: (text, params, opts) => tx.query(text, params, opts),
    exec: (script) => tx.exec(script),
    copyFrom: (table, columns, chunks, format) => {
      copies.push(table);
      return tx.copyFrom(table, columns, chunks, format);
    },
  };
}

describe.each(databaseCases())('bulkUpsert in parts on $name', (kase) => {
  const services = useServices(kase);
  let seriesId: number;

  beforeAll(async () => {
    seriesId = await services().store.transaction((tx) => tx.series.ensure({ exchange: 'perp', symbol: 'PART-USDT' }));
  });

  const rates = async () =>
    (await services().store.db.query<{ h: number; rate: string }>(
      `SELECT ((extract(epoch FROM time) * 1000 - $2) / $3)::int AS h, rate::text AS rate FROM funding_rates WHERE series_id = $1 ORDER BY time`,
      [seriesId, T0, HOUR],
    )).map((r) => `${r.h}:${r.rate}`);

  it('when the input spans several parts, then it is sent as several COPY statements and every row is stored once', async () => {
    const copies: string[] = [];
    const log: string[] = [];
    await services().store.db.transaction((tx) => bulkUpsert(counting(tx, copies), SPEC, source(seriesId, range(0, 3000), 0, log), { parts: PARTS }));
    expect(copies.length).toBeGreaterThan(3);
    expect(copies.every((t) => t === 'funding_rates')).toBe(true);
    expect(log).toEqual(['open', 'closed']);
    expect(await rates()).toEqual(range(0, 3000).map((h) => `${h}:${h}`));
  });

  it.each([
    ['the first part, while the input is still being read', range(2500, 3000), 7],
    ['the last part', [...range(3000, 2500), ...range(2500, 500)], 11],
  ])('when rows in %s collide with stored ones, then the staging upsert writes the input, the first reader closed before the second', async (_where, hours, shift) => {
    const copies: string[] = [];
    const log: string[] = [];
    await services().store.db.transaction((tx) => bulkUpsert(counting(tx, copies), SPEC, source(seriesId, hours, shift, log), { parts: PARTS }));
    expect(copies[copies.length - 1]).toBe('stage_funding_rates');
    expect(log).toEqual(['open', 'closed', 'open', 'closed']);
    expect(await rates()).toEqual(range(0, 5500).map((h) => `${h}:${h < 2500 ? h : h + shift}`));
  });

  it('when the source fails in a later part, then the error is thrown, the source closed, and nothing of the input is written', async () => {
    const before = await rates();
    const log: string[] = [];
    const run = services().store.db.transaction((tx) => bulkUpsert(tx, SPEC, source(seriesId, range(6000, 3000), 0, log, 2000), { parts: PARTS }));
    await expect(run).rejects.toThrow('the source failed');
    expect(log).toEqual(['open', 'closed']);
    expect(await rates()).toEqual(before);
  });
});

describe.each(databaseCases().flatMap((kase) => (['csv', 'binary'] as const).map((format) => ({ ...kase, format }))))('bulkUpsert into leaf partitions on $name, $format rows', (kase) => {
  const services = useServices(kase);
  const MINUTE = 60_000;
  const SPEC_1M = {
    table: 'candles_1m',
    leafOf: leafOf('candles', '1m'),
    columns: ['series_id', 'timeframe', 'time', 'open', 'high', 'low', 'close', 'volume'],
    key: ['series_id', 'timeframe', 'time'],
    ...(kase.format === 'binary' ? { types: ['int4', 'text', 'timestamptz', 'numeric', 'numeric', 'numeric', 'numeric', 'numeric'] as ColumnType[] } : {}),
  };
  let seriesId: number;

  beforeAll(async () => {
    seriesId = await services().store.transaction((tx) => tx.series.ensure({ exchange: 'perp', symbol: 'LEAF-USDT' }));
    // January to March 2024 exist; nothing of 2031 does.
    await services().store.partitions.ensure([{ timeframe: '1m', fromMs: T0, toMs: Date.UTC(2024, 2, 31) }]);
  });

  /** Candle rows at `minutes` after `from`, 500 to a chunk, as CSV lines or binary rows; close = minute + shift. */
  function candles(from: number, minutes: number[], shift: number) {
    return async function* (): AsyncGenerator<string | Buffer> {
      for (let i = 0; i < minutes.length; i += 500) {
        let chunk = '';
        const out = new BinaryRows();
        for (const m of minutes.slice(i, i + 500)) {
          const time = from + m * MINUTE;
          chunk += `${seriesId},1m,${new Date(time).toISOString()},1,${m + shift + 1},0.5,${m + shift},1\n`;
          out.row(8);
          out.int4(seriesId);
          out.ascii('1m');
          out.timestamptz(time);
          for (const v of ['1', String(m + shift + 1), '0.5', String(m + shift), '1']) out.decimalText(v);
        }
        yield kase.format === 'binary' ? out.take() : chunk;
      }
    };
  }
  const stored = async (from: number) =>
    (await services().store.db.query<{ m: number; close: string }>(
      `SELECT ((extract(epoch FROM time) * 1000 - $2) / $3)::int AS m, close::text AS close FROM candles WHERE series_id = $1 AND timeframe = '1m' ORDER BY time`,
      [seriesId, from, MINUTE],
    )).map((r) => `${r.m}:${r.close}`);

  it('when the rows span three months, then each month is copied into its leaf, a chunk cut where the month ends, and every row is stored once', async () => {
    const copies: string[] = [];
    const minutes = range(40_000, 50_000); // from 28 January into mid-March
    await services().store.db.transaction((tx) => bulkUpsert(counting(tx, copies), SPEC_1M, candles(T0, minutes, 0), { parts: { chars: 1 << 20, readAhead: 2 << 20 } }));
    expect([...new Set(copies)]).toEqual(['candles_1m_2024_01', 'candles_1m_2024_02', 'candles_1m_2024_03']);
    expect(await stored(T0)).toEqual(minutes.map((m) => `${m}:${m}`));
  });

  it('when a line is out of its leaf order, then the whole input goes through the timeframe table and every row is stored once', async () => {
    const copies: string[] = [];
    const minutes = range(100_000, 3_000); // March, with one line of 2 January inside
    const lines = [...minutes.slice(0, 1_200), 1_500, ...minutes.slice(1_200)];
    await services().store.db.transaction((tx) => bulkUpsert(counting(tx, copies), SPEC_1M, candles(T0, lines, 0), {}));
    expect(copies[copies.length - 1]).toBe('candles_1m');
    const rows = await stored(T0);
    expect(rows).toContain('1500:1500');
    expect(rows.slice(-3_000)).toEqual(minutes.map((m) => `${m}:${m}`));
  });

  it('when the rows reach a month without a partition, then nothing is written and the table refuses them as missing a partition', async () => {
    const from = Date.UTC(2031, 0, 1);
    const run = services().store.db.transaction((tx) => bulkUpsert(tx, SPEC_1M, candles(from, range(0, 3_000), 0), {}));
    const err = await run.catch((e: unknown) => e);
    expect(isMissingPartition(err)).toBe(true);
    const [{ n }] = await services().store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM candles WHERE series_id = $1 AND time >= $2`, [seriesId, new Date(from)]);
    expect(n).toBe(0);
  });
});

