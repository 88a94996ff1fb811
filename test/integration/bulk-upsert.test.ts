/**
 * bulkUpsert with its input in parts (several COPY statements in one savepoint, the input read
 * ahead), on PGlite and on PostgreSQL: every row arrives once and in order; rows colliding in a
 * later part send the whole input through the staging upsert (the last row of a key wins), the
 * first reader closed before the second starts; a source failing in a later part writes nothing.
 */
import { bulkUpsert } from '../../src/db/bulk-upsert';
import type { SqlSession } from '../../src/db/database';
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
    copyFrom: (table, columns, chunks) => {
      copies.push(table);
      return tx.copyFrom(table, columns, chunks);
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
