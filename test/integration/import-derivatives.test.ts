/**
 * `mds import derivatives`: a perpetual's context per minute from CSV, on PGlite and PostgreSQL,
 * validated like a candle import (one bad row refuses the file with its line, nothing written),
 * upserted (the last row wins), rolled up after, and again by `mds compute`; refused on the spot
 * exchange. And the command itself, as a user runs it.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { csvFile } from '../helpers/csv';
import { databaseCases, useServices } from '../helpers/databases';
import { runMds } from '../helpers/processes';

const MIN = 60_000;
const T = Date.UTC(2025, 0, 6, 9, 0);
const HEADER = 'time,open_interest,mark_price,oracle_price,mid_price,predicted_funding_rate,venue_premium';
const PERP = { exchange: 'perp', symbol: 'CTX-USDT' };
const iso = (ms: number) => new Date(ms).toISOString();
const line = (i: number, oi: string) => `${iso(T + i * MIN)},${oi},6412${i}.5,6413${i},${i === 2 ? '' : `6412${i}.25`},1.25e-05,${i === 2 ? '' : '0.00031774'}`;

describe.each(databaseCases())('mds import derivatives on $name', (kase) => {
  const services = useServices(kase);

  it('when a file of minutes is imported, then each is stored exact, empty cells null, and 5m rolled up', async () => {
    const s = services();
    const file = csvFile([HEADER, ...[0, 1, 2, 3, 4, 5].map((i) => line(i, `${100 + i * (i % 2 ? 1 : -1)}`))]);
    const r = await s.importer.importDerivatives(PERP, file);
    expect({ rows: r.rows, from: r.from, to: r.to }).toEqual({ rows: 6, from: T, to: T + 5 * MIN });
    await s.recompute.afterDerivativesChanged(r.seriesId, r.from!, r.to!, T + 10 * MIN);
    const m1 = (await s.store.derivatives.pages([r.seriesId], '1m', new Date(T), new Date(T + 5 * MIN), 10)).get(r.seriesId)!;
    expect(m1[2]).toMatchObject({ openInterest: '98.000000', openInterestHigh: '98.000000', markPrice: '64122.500000', midPrice: null, predictedFundingRate: '0.00001250', venuePremium: null });
    const m5 = (await s.store.derivatives.pages([r.seriesId], '5m', new Date(T), new Date(T + 5 * MIN), 10)).get(r.seriesId)!;
    // Minutes 0-4: 100, 101, 98, 103, 96; the next bucket, closed by now, from the one minute it has.
    expect(m5).toEqual([
      expect.objectContaining({ openInterestOpen: '100.000000', openInterestHigh: '103.000000', openInterestLow: '96.000000', openInterest: '96.000000', markPrice: '64124.500000' }),
      expect.objectContaining({ time: '2025-01-06T09:05:00+00:00', openInterestOpen: '105.000000', openInterest: '105.000000' }),
    ]);
  });

  it('when a minute is imported again, then the last row wins', async () => {
    const s = services();
    const r = await s.importer.importDerivatives(PERP, csvFile([HEADER, line(1, '500'), line(1, '501.5')]));
    const [row] = (await s.store.derivatives.pages([r.seriesId], '1m', new Date(T + MIN), new Date(T + MIN), 10)).get(r.seriesId)!;
    expect(row.openInterest).toBe('501.500000');
  });

  it.each([
    ['a row off the minute', [HEADER, line(0, '1'), `${iso(T + 30_000)},1,2,2,2,0,0`], ':3: time'],
    ['a negative open interest', [HEADER, line(0, '-5')], ':2: open interest is negative'],
    ['another header', ['time,open_interest,mark_price', line(0, '1')], ':1: header must be'],
  ])('when the file has %s, then INVALID_IMPORT names the line and nothing is written', async (_what, lines, message) => {
    const s = services();
    const market = { exchange: 'perp', symbol: 'BAD-USDT' };
    await expect(s.importer.importDerivatives(market, csvFile(lines))).rejects.toMatchObject({ code: 'INVALID_IMPORT', message: expect.stringContaining(message) });
    const id = await s.store.series.idOf(market);
    expect(id === undefined ? [] : ((await s.store.derivatives.pages([id], '1m', new Date(0), new Date(T + MIN), 10)).get(id) ?? [])).toEqual([]);
  });

  it('when the spot exchange is named, then INVALID_EXCHANGE', async () => {
    await expect(services().importer.importDerivatives({ exchange: 'spot', symbol: 'CTX-USDT' }, csvFile([HEADER, line(0, '1')]))).rejects.toMatchObject({
      code: 'INVALID_EXCHANGE',
      message: 'the spot venue has no perpetual context; use exchange=perp',
    });
  });
});

describe.each(databaseCases())('mds compute over the perpetual context on $name', (kase) => {
  const services = useServices(kase);
  const COARSER = ['5m', '15m', '1h', '4h', '1d'] as const;
  // Open interest 200 + (7i mod 11): at 09:00 200..210 (last 206), at 10:00 202, 209, 205, 201, 208.
  const minute = (i: number) => `${iso(T + i * MIN)},${200 + ((i * 7) % 11)},${100 + i}.5,${100 + i},${100 + i}.25,1.25e-05,0.0003`;
  const NOW = Date.UTC(2025, 0, 8);

  it('when the rollups of imported minutes are gone, then recomputeAll writes them again with the values the import rolled up', async () => {
    const s = services();
    const r = await s.importer.importDerivatives(PERP, csvFile([HEADER, ...Array.from({ length: 65 }, (_, i) => minute(i))]));
    await s.recompute.afterDerivativesChanged(r.seriesId, r.from!, r.to!, NOW);
    const coarser = async () =>
      Object.fromEntries(
        await Promise.all(COARSER.map(async (tf) => [tf, (await s.store.derivatives.pages([r.seriesId], tf, new Date(T - 86_400_000), new Date(NOW), 100)).get(r.seriesId) ?? []])),
      );
    const rolledUp = await coarser();
    expect(rolledUp['1h']).toEqual([
      expect.objectContaining({ time: '2025-01-06T09:00:00+00:00', openInterestOpen: '200.000000', openInterestHigh: '210.000000', openInterestLow: '200.000000', openInterest: '206.000000', markPrice: '159.500000' }),
      expect.objectContaining({ time: '2025-01-06T10:00:00+00:00', openInterestOpen: '202.000000', openInterestHigh: '209.000000', openInterestLow: '201.000000', openInterest: '208.000000', markPrice: '164.500000' }),
    ]);
    expect(rolledUp['5m']).toHaveLength(13);
    expect(rolledUp['1d']).toEqual([expect.objectContaining({ openInterestOpen: '200.000000', openInterestHigh: '210.000000', openInterest: '208.000000' })]);
    await s.store.db.query(`DELETE FROM derivatives WHERE timeframe <> '1m'`);
    expect(Object.values(await coarser()).flat()).toEqual([]);

    const summary = await s.recompute.recomputeAll(NOW);

    expect(summary.contextRollups).toBe(1);
    expect(await coarser()).toEqual(rolledUp);
  });
});

describe('the mds import derivatives command', () => {
  it('when run on a file, then it prints the summary as JSON and exits 0', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-cli-'));
    const file = csvFile([HEADER, line(0, '10'), line(1, '11')]);
    const r = await runMds(['import', 'derivatives', '--exchange', 'perp', '--symbol', 'btc-usdt', '--file', file], { DATA_DIR: path.join(dir, 'data') });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ exchange: 'perp', symbol: 'BTC-USDT', rows: 2, from: iso(T), to: iso(T + MIN) });
  });
});
