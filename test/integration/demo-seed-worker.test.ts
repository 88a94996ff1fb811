/**
 * The seed child's worker thread (dist/, as the child runs it) makes the same rows as the seed
 * makes in its own thread: every encoded byte of a symbol's new series, and the candles of a
 * series that already holds some. Its failures reach the seed as errors.
 */
import path from 'node:path';
import { DEMO_SYMBOLS } from '../../src/domain/demo-data';
import { demoWindow, lazySymbolSeeds, symbolSeeds, type DemoSeries, type SeriesSeed } from '../../src/services/demo/demo-seed-rows';
import type { SeedRowsSource } from '../../src/services/demo/demo-seed.service';

// The compiled file: the worker thread runs it with node, outside jest.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { seedWorker } = require(path.join(__dirname, '..', '..', 'dist', 'src', 'services', 'demo', 'demo-seed.worker.js')) as {
  seedWorker: () => { symbol(...args: Parameters<SeedRowsSource['symbol']>): Promise<SeriesSeed[]>; close(): Promise<void> };
};

/** A seed's rows with every chunk as one Buffer per write, comparable with toEqual. */
function flat(seeds: SeriesSeed[]) {
  const writes = (rows: Array<{ timeframe: string; span: object; count: number; chunks: readonly Buffer[] }> = []) =>
    rows.map((r) => ({ timeframe: r.timeframe, span: r.span, count: r.count, bytes: Buffer.concat(r.chunks).toString('base64') }));
  return seeds.map((s) => ({ ...s, encoded: s.encoded && { candles: writes(s.encoded.candles), features: writes(s.encoded.features) } }));
}

describe('the demo seed rows made in the worker thread', () => {
  let rows: ReturnType<typeof seedWorker>;
  beforeAll(() => (rows = seedWorker()));
  afterAll(() => rows.close());
  /** In the middle of a day and of an hour: the current 1h, 4h and 1d buckets are still open. */
  const w = demoWindow(Date.UTC(2026, 5, 15, 10, 30, 20));

  it('when two symbols are asked for at once, then each gets exactly the rows made in this thread, as Buffers', async () => {
    const gappy = DEMO_SYMBOLS.findIndex((s) => s.symbol === 'SOL-USDT');
    const asked = [0, gappy].map((symbol) => [
      { symbol, venue: 'spot', id: 10 + symbol * 2, empty: true },
      { symbol, venue: 'perp', id: 11 + symbol * 2, empty: true },
    ]) as DemoSeries[][];
    const made = await Promise.all(asked.map((series, i) => rows.symbol([0, gappy][i], series, w)));
    for (const [i, series] of asked.entries()) {
      const here = await symbolSeeds([0, gappy][i], series, w);
      expect(made[i].every((s) => s.encoded!.features.every((f) => f.chunks.every((c) => Buffer.isBuffer(c))))).toBe(true);
      expect(flat(made[i])).toEqual(flat(here));
      expect(here.every((s) => s.encoded !== null && s.candles === null)).toBe(true);
      // Made inline as they are written, the features are the same bytes.
      const lazy = await lazySymbolSeeds([0, gappy][i], series, w);
      const collected: SeriesSeed[] = [];
      for (const s of lazy) {
        const features = [];
        for await (const f of s.encoded!.features) features.push(f);
        collected.push({ ...s, encoded: { candles: s.encoded!.candles, features } });
      }
      expect(flat(collected)).toEqual(flat(here));
    }
  }, 60_000);

  it('when a series holds candles already, then its candles come back unencoded, for the SQL path', async () => {
    const series: DemoSeries[] = [{ symbol: 1, venue: 'perp', id: 3, empty: false }];
    const [made] = await rows.symbol(1, series, w);
    const [here] = await symbolSeeds(1, series, w);
    expect(made.encoded).toBeNull();
    expect(made.candles).toEqual(here.candles);
    expect(made.counts).toEqual({ hours: here.candles!.hours.length, minutes: here.candles!.minutes.length });
  }, 60_000);

  it('when the rows cannot be made, then the request fails with the thread\'s reason', async () => {
    await expect(rows.symbol(DEMO_SYMBOLS.length, [{ symbol: DEMO_SYMBOLS.length, venue: 'spot', id: 1, empty: true }], w)).rejects.toThrow(/the seed's worker thread failed: TypeError/);
  });
});
