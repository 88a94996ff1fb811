/**
 * Imports that must not half-happen, on PGlite and on PostgreSQL: a corrupt or truncated CSV (cut
 * mid-line, a bad price, a wrong header, binary garbage, UTF-16) is refused with `file:line: reason`
 * and nothing at all is written, also when the bad line comes after the first COPY chunk and when
 * the file re-imports stored times (the staging path); the same series imported twice at once (in
 * process, and on PostgreSQL as two `mds import` processes) ends as one import leaves it.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Services } from '../../src/composition';
import { csvFile, rawFile } from '../helpers/csv';
import { databaseCases, useServices, freshPostgres } from '../helpers/databases';
import { testConfig } from '../helpers/config';
import { openServices } from '../../src/composition';
import { runMds } from '../helpers/processes';
import { describeWith } from '../helpers/requirements';

const T0 = Date.UTC(2024, 0, 1);
const MINUTE = 60_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2024, 0, 6);
const iso = (ms: number) => new Date(ms).toISOString();
const CANDLES = 'time,open,high,low,close,volume';
const FUNDING = 'time,rate';
const BTC = { exchange: 'perp', symbol: 'BTC-USDT' };

/** n valid 1m rows from `start`; `shift` moves every price, so a write would show. */
function minuteRows(n: number, start = T0, shift = 0): string[] {
  return Array.from({ length: n }, (_, i) => {
    const o = 100 + shift + (i % 13);
    const c = 100 + shift + ((i * 7) % 13);
    return `${iso(start + i * MINUTE)},${o},${Math.max(o, c) + 1},${Math.min(o, c) - 1},${c},${(i % 5) + 0.25}`;
  });
}

function fundingRows(n: number, start = T0, shift = 0): string[] {
  return Array.from({ length: n }, (_, i) => `${iso(start + i * HOUR)},${(((i * 37) % 11) - 5 + shift) * 1e-5}`);
}

/** Deterministic pseudo-random bytes (no newline bias: any byte may appear). */
function garbage(size: number, seed = 7): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Everything stored, as sorted text, with series named by market instead of id (ids differ between databases). */
async function snapshot(s: Services, opts: { qualityTimes?: boolean } = {}): Promise<Record<string, string[]>> {
  const rows = async (table: string, drop: string[] = []) =>
    (
      await s.store.db.query<{ r: string }>(
        `SELECT s.exchange || ':' || s.symbol || ' ' || (to_jsonb(t) - 'series_id'${drop.map((c) => ` - '${c}'`).join('')})::text AS r
         FROM ${table} t JOIN series s ON s.id = t.series_id ORDER BY 1`,
      )
    ).map((x) => x.r);
  return {
    series: (await s.store.db.query<{ r: string }>(`SELECT exchange || ':' || symbol AS r FROM series ORDER BY 1`)).map((x) => x.r),
    candles: await rows('candles'),
    funding_rates: await rows('funding_rates'),
    features: await rows('features'),
    // Without quality times: also without the holes, whose window (the last 7 days) follows
    // each process's own clock, so two processes a minute apart see it shifted by a minute.
    quality: await rows('quality', opts.qualityTimes === false ? ['computed_at', 'missing_intervals'] : []),
  };
}

function counts(snap: Record<string, string[]>): Record<string, number> {
  return Object.fromEntries(Object.entries(snap).map(([k, v]) => [k, v.length]));
}

interface Corrupt {
  name: string;
  kind: 'candles' | 'funding';
  market?: { exchange: string; symbol: string };
  file: () => string;
  line: number;
  reason: RegExp;
}

const corrupt: Corrupt[] = [
  {
    name: 'the file is cut mid-line (no final newline) after 3,000 good rows',
    kind: 'candles',
    file: () => rawFile([CANDLES, ...minuteRows(3000, T0, 50)].join('\n') + `\n${iso(T0 + 3000 * MINUTE)},101,10`),
    line: 3002,
    reason: /expected 6 columns, got 3$/,
  },
  {
    name: 'the file is cut inside the last number',
    kind: 'candles',
    file: () => rawFile([CANDLES, ...minuteRows(2500, T0, 50)].join('\n') + `\n${iso(T0 + 2500 * MINUTE)},101,102,100,101,1e`),
    line: 2502,
    reason: /volume "1e" is not a finite number$/,
  },
  {
    name: 'a price is not a number (letter O for zero) at line 2,600',
    kind: 'candles',
    file: () => {
      const rows = minuteRows(3000, T0, 50);
      rows[2598] = `${iso(T0 + 2598 * MINUTE)},12O.5,130,120,125,1`;
      return csvFile([CANDLES, ...rows]);
    },
    line: 2600,
    reason: /open "12O\.5" is not a finite number$/,
  },
  {
    name: 'a close is NaN',
    kind: 'candles',
    file: () => csvFile([CANDLES, ...minuteRows(10, T0, 50), `${iso(T0 + 10 * MINUTE)},100,101,99,NaN,1`]),
    line: 12,
    reason: /close "NaN" is not a finite number$/,
  },
  {
    name: 'the header is wrong',
    kind: 'candles',
    file: () => csvFile(['timestamp,open,high,low,close,volume', ...minuteRows(10, T0, 50)]),
    line: 1,
    reason: /header must be "time,open,high,low,close,volume", got "timestamp,open,high,low,close,volume"$/,
  },
  {
    name: 'the file is binary garbage',
    kind: 'candles',
    file: () => rawFile(garbage(64 * 1024)),
    line: 1,
    reason: /not CSV text \(binary data, or not UTF-8\)$/,
  },
  {
    name: 'binary garbage follows 2,600 good rows (a damaged tail)',
    kind: 'candles',
    file: () => rawFile(Buffer.concat([Buffer.from([CANDLES, ...minuteRows(2600, T0, 50)].join('\n') + '\n'), garbage(4096, 11)])),
    line: 2602,
    reason: /not CSV text \(binary data, or not UTF-8\)$/,
  },
  {
    name: 'the file is UTF-16',
    kind: 'candles',
    file: () => rawFile(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from([CANDLES, ...minuteRows(5, T0, 50)].join('\n') + '\n', 'utf16le')])),
    line: 1,
    reason: /not CSV text \(binary data, or not UTF-8\)$/,
  },
  {
    name: 'a new market whose file is cut mid-line after 2,500 rows (COPY fast path)',
    kind: 'candles',
    market: { exchange: 'spot', symbol: 'NEW-USDT' },
    file: () => rawFile([CANDLES, ...minuteRows(2500)].join('\n') + `\n${iso(T0 + 2500 * MINUTE)},10`),
    line: 2502,
    reason: /expected 6 columns, got 2$/,
  },
  {
    name: 'a new market whose price is not a number at line 4,001',
    kind: 'candles',
    market: { exchange: 'spot', symbol: 'NEW-USDT' },
    file: () => {
      const rows = minuteRows(4500);
      rows[3999] = `${iso(T0 + 3999 * MINUTE)},abc,1,1,1,1`;
      return csvFile([CANDLES, ...rows]);
    },
    line: 4001,
    reason: /open "abc" is not a finite number$/,
  },
  {
    name: 'funding cut mid-line',
    kind: 'funding',
    file: () => rawFile([FUNDING, ...fundingRows(30, T0, 3)].join('\n') + `\n${iso(T0 + 30 * HOUR)}`),
    line: 32,
    reason: /expected 2 columns, got 1$/,
  },
  {
    name: 'a funding rate is not a number',
    kind: 'funding',
    file: () => csvFile([FUNDING, ...fundingRows(20, T0, 3), `${iso(T0 + 20 * HOUR)},0.01%`]),
    line: 22,
    reason: /rate "0\.01%" is not a finite number$/,
  },
  {
    name: 'the funding header is wrong',
    kind: 'funding',
    file: () => csvFile(['time,funding_rate', ...fundingRows(5, T0, 3)]),
    line: 1,
    reason: /header must be "time,rate"/,
  },
  {
    name: 'the funding file is binary garbage',
    kind: 'funding',
    file: () => rawFile(garbage(8 * 1024, 3)),
    line: 1,
    reason: /not CSV text/,
  },
];

describe.each(databaseCases())('corrupt imports on $name', (kase) => {
  const services = useServices(kase);
  let before: Record<string, string[]>;

  beforeAll(async () => {
    const s = services();
    const c = await s.importer.importCandles(BTC, '1m', csvFile([CANDLES, ...minuteRows(180)]));
    await s.recompute.afterCandlesChanged(c.seriesId, '1m', c.from!, c.to!, NOW);
    const f = await s.importer.importFunding(BTC, csvFile([FUNDING, ...fundingRows(48)]));
    await s.recompute.afterFundingChanged(f.seriesId);
    before = await snapshot(s);
    expect(counts(before)).toMatchObject({ series: 1, candles: 180 + 36 + 12 + 3 + 1 + 1, funding_rates: 48 });
    expect(before.features.length).toBeGreaterThan(0);
    expect(before.quality.length).toBeGreaterThan(0);
  });

  it.each(corrupt)('when $name, then it is refused with file:line and the reason, and nothing is written', async (c) => {
    const s = services();
    const file = c.file();
    const run = c.kind === 'candles' ? s.importer.importCandles(c.market ?? BTC, '1m', file) : s.importer.importFunding(c.market ?? BTC, file);
    const err = await run.then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(err).toMatchObject({ code: 'INVALID_IMPORT' });
    const prefix = `${file}:${c.line}: `;
    expect(err!.message.startsWith(prefix) ? err!.message.slice(prefix.length) : err!.message).toMatch(c.reason);
    // One readable line, however wild the file.
    expect(err!.message).not.toMatch(/[\u0000-\u001f\ufffd]/); // eslint-disable-line no-control-regex
    expect(err!.message.length).toBeLessThan(file.length + 400);
    expect(await snapshot(s)).toEqual(before);
  });
});

describe('import paths that are no file', () => {
  const services = useServices(databaseCases()[0]);
  it.each([
    ['a missing file', () => path.join(os.tmpdir(), `mds-missing-${Date.now()}.csv`), (f: string) => `file not found: ${f}`],
    ['a directory', () => os.tmpdir(), (f: string) => `is a directory: ${f}`],
  ])('when the file is %s, then INVALID_IMPORT says so plainly (not Node\'s ENOENT/EISDIR text)', async (_what, file, message) => {
    const f = file();
    for (const run of [() => services().importer.importCandles(BTC, '1m', f), () => services().importer.importFunding(BTC, f)]) {
      await expect(run()).rejects.toMatchObject({ code: 'INVALID_IMPORT', message: message(f) });
    }
  });

  it('when `mds import candles` names a missing file, then it exits 1 with that one line', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-cli-'));
    const r = await runMds(['import', 'candles', '--exchange', 'perp', '--symbol', 'BTC-USDT', '--timeframe', '1m', '--file', 'x.csv'], { DATA_DIR: path.join(dir, 'data') });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: 'mds import candles: file not found: x.csv\n' });
  });
});

/** One import run as the CLI does it: candles then what follows them, funding then its features. */
async function importSeries(s: Services, candles: string, funding: string): Promise<void> {
  const c = await s.importer.importCandles(BTC, '1m', candles);
  await s.recompute.afterCandlesChanged(c.seriesId, '1m', c.from!, c.to!, NOW);
  const f = await s.importer.importFunding(BTC, funding);
  await s.recompute.afterFundingChanged(f.seriesId);
}

/** The other venue's hourly candles, so premium and consistency have something to compare. */
async function spotHours(s: Services): Promise<void> {
  const rows = Array.from({ length: 72 }, (_, h) => `${iso(T0 + h * HOUR)},100,${113 + (h % 3)},99,${100 + (h % 7)},3`);
  const r = await s.importer.importCandles({ exchange: 'spot', symbol: 'BTC-USDT' }, '1h', csvFile([CANDLES, ...rows]));
  await s.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, NOW);
}

describe.each(databaseCases())('the same series imported twice at once on $name', (kase) => {
  const once = useServices(kase);
  const twice = useServices(kase);
  const candles = csvFile([CANDLES, ...minuteRows(2 * 1440)]);
  const funding = csvFile([FUNDING, ...fundingRows(72)]);

  it('when two imports of the same files run concurrently, then the state equals that of one import', async () => {
    await spotHours(once());
    await spotHours(twice());
    await importSeries(once(), candles, funding);
    await Promise.all([importSeries(twice(), candles, funding), importSeries(twice(), candles, funding)]);
    const expected = await snapshot(once());
    expect(counts(expected)).toMatchObject({ series: 2, candles: 2 * (1440 + 288 + 96 + 24 + 6 + 1) + 72 + 18 + 3, funding_rates: 72 });
    expect(await snapshot(twice())).toEqual(expected);
  }, 120_000);

  it('when imports of both venues of a symbol and of its funding all run at once, twice over (as mds runs them: under the symbol lock), then the state equals one run', async () => {
    const spot = csvFile([CANDLES, ...minuteRows(360, T0 + 3 * 86_400_000, 7)]);
    const perp = csvFile([CANDLES, ...minuteRows(360, T0 + 3 * 86_400_000, 9)]);
    const more = csvFile([FUNDING, ...fundingRows(24, T0 + 72 * HOUR, 1)]);
    const locked = (s: Services, fn: () => Promise<void>) => s.recompute.forSymbol('BTC-USDT', fn);
    const run = (s: Services) =>
      Promise.all([
        locked(s, async () => {
          const r = await s.importer.importCandles({ exchange: 'spot', symbol: 'BTC-USDT' }, '1m', spot);
          await s.recompute.afterCandlesChanged(r.seriesId, '1m', r.from!, r.to!, NOW);
        }),
        locked(s, async () => {
          const r = await s.importer.importCandles(BTC, '1m', perp);
          await s.recompute.afterCandlesChanged(r.seriesId, '1m', r.from!, r.to!, NOW);
        }),
        locked(s, async () => {
          const r = await s.importer.importFunding(BTC, more);
          await s.recompute.afterFundingChanged(r.seriesId);
        }),
      ]);
    await run(once());
    await Promise.all([run(twice()), run(twice())]);
    // Features (premium reads both venues) and quality (consistency compares them) included:
    // the symbol lock spans each import and its recalculation, so none reads a half state.
    expect(await snapshot(twice())).toEqual(await snapshot(once()));
  }, 120_000);
});

describeWith('DATABASE_URL', 'two `mds import candles` processes at once on PostgreSQL', (serverUrl) => {
  const dbs: Array<{ url: string; drop(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(dbs.map((d) => d.drop()));
  });

  async function migrated(): Promise<string> {
    const d = await freshPostgres(serverUrl);
    dbs.push(d);
    const s = await openServices(testConfig({ DATABASE_URL: d.url }));
    await spotHours(s);
    await s.close();
    return d.url;
  }

  const read = async (url: string) => {
    const s = await openServices(testConfig({ DATABASE_URL: url }), { migrate: false });
    try {
      return await snapshot(s, { qualityTimes: false });
    } finally {
      await s.close();
    }
  };

  it('when `mds import candles` is given a truncated file, then it exits 1 with one line naming file:line, and writes nothing', async () => {
    const url = await migrated();
    const before = await read(url);
    const file = rawFile([CANDLES, ...minuteRows(2500)].join('\n') + `\n${iso(T0 + 2500 * MINUTE)},101,10`);
    const r = await runMds(['import', 'candles', '--exchange', 'perp', '--symbol', 'BTC-USDT', '--timeframe', '1m', '--file', file], { DATABASE_URL: url });
    expect(r).toEqual({ code: 1, stdout: '', stderr: `mds import candles: ${file}:2502: expected 6 columns, got 3\n` });
    expect(await read(url)).toEqual(before);
  }, 60_000);

  it('when two processes import the same file into the same series, then both succeed and the state equals one import', async () => {
    const file = csvFile([CANDLES, ...minuteRows(3 * 1440)]);
    const args = ['import', 'candles', '--exchange', 'perp', '--symbol', 'BTC-USDT', '--timeframe', '1m', '--file', file];
    const [one, two] = await Promise.all([migrated(), migrated()]);
    const single = await runMds(args, { DATABASE_URL: one });
    expect(single).toMatchObject({ code: 0, stderr: '' });
    const both = await Promise.all([runMds(args, { DATABASE_URL: two }), runMds(args, { DATABASE_URL: two })]);
    for (const r of both) {
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(r.stdout)).toMatchObject({ exchange: 'perp', symbol: 'BTC-USDT', rows: 3 * 1440 });
    }
    // Each process stamps quality with its own clock: compare everything but what follows it.
    const expected = await read(one);
    expect(expected.candles.length).toBe(3 * (1440 + 288 + 96 + 24 + 6 + 1) + 72 + 18 + 3);
    expect(await read(two)).toEqual(expected);
  }, 180_000);
});
