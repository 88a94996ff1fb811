/**
 * Backfill from the venues (`IngestService.sync`, what `mds sync` runs) against the local venue
 * simulator, on each database: stored candles are the venue's values, Hyperliquid's horizon is
 * recorded as known venue gaps with coarser candles fetched from the venue before the earliest
 * 1m, a resumed sync asks only for what is missing, and refusals and bad rows are handled.
 */
import { openServices, type Services } from '../../src/composition';
import { candleOf } from '../../src/domain/candle-text';
import { roundDecimal } from '../../src/domain/decimal';
import { bucketStart, lastClosedOpen } from '../../src/domain/timeframe';
import { VenueRefusedError } from '../../src/venues/venue';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';
import { VenueSimulator } from '../../tools/venue-sim';

const MIN = 60_000;

describe.each(databaseCases())('mds sync against the venue simulator on $name', ({ create }) => {
  let sim: VenueSimulator;
  let s: Services;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    sim = await VenueSimulator.start({ hyperliquidCandleLimit: 90 });
    const db = await create();
    drop = db?.drop;
    const env = { ...sim.env, INGEST_SYMBOLS: 'BTC-USDT,ETH-USDT', ...(db ? { DATABASE_URL: db.url } : {}) };
    s = await openServices(testConfig(env), db ? {} : { dataDir: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
    await drop?.();
    await sim?.close();
  });

  const stored = async (exchange: string, symbol: string, tf: '1m' | '5m' | '1h', from: number, to: number) => {
    const id = (await s.store.series.idOf({ exchange, symbol }))!;
    return ((await s.store.candles.pages([id], tf, new Date(from), new Date(to), 100_000, false)).get(id) ?? []).map((r) => candleOf(r, false));
  };
  const six = (v: string) => roundDecimal(v, 6);

  it('when a series is backfilled, then every closed candle is stored with the venue values and a summary is returned', async () => {
    const now = Date.now();
    const summary = await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['spot'], sinceMs: now - 3 * 60 * MIN });
    expect(summary.series).toEqual([expect.objectContaining({ exchange: 'spot', symbol: 'BTC-USDT', venue: 'binance', instrument: 'BTCUSDT', venue_gap_slots: 0 })]);
    expect(summary.requests.binance).toBeGreaterThan(0);
    expect(summary.weight_used.binance).toBe(2 * summary.requests.binance);
    // The last minute closed when the sync began (one closing while it ran may or may not be in).
    const last = lastClosedOpen(now, '1m');
    const first = bucketStart(now - 3 * 60 * MIN, '1m');
    const rows = await stored('spot', 'BTC-USDT', '1m', first, last);
    expect(rows.length).toBe((last - first) / MIN + 1);
    for (const r of rows) {
      const v = sim.candle('binance', 'BTCUSDT', '1m', Date.parse(r.time))!;
      expect(r).toMatchObject({ open: six(v.open), high: six(v.high), low: six(v.low), close: six(v.close), volume: six(v.volume) });
    }
    expect(rows[rows.length - 1].time.slice(0, 16)).toBe(new Date(last).toISOString().slice(0, 16));
    // Rolled up and computed: the hour buckets and their features exist.
    expect((await stored('spot', 'BTC-USDT', '1h', now - 3 * 60 * MIN, last)).length).toBeGreaterThanOrEqual(2);
  });

  it('when the sync runs again, then it resumes: only the slots not yet stored are asked for', async () => {
    const before = sim.requests.length;
    const summary = await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['spot'], sinceMs: Date.now() - 3 * 60 * MIN });
    const asked = sim.requests.slice(before).filter((r) => r.kind === 'klines');
    expect(asked.length).toBeLessThanOrEqual(1);
    expect(summary.series[0].rows).toBeLessThanOrEqual(2);
  });

  it("when the perpetual venue serves only its latest candles, then older 1m slots are known venue gaps and coarser candles come from the venue", async () => {
    const now = Date.now();
    const since = now - 6 * 60 * MIN;
    const summary = await s.ingest.sync({ symbols: ['ETH-USDT'], exchanges: ['perp'], sinceMs: since });
    expect(summary.series[0]).toMatchObject({ venue: 'hyperliquid', instrument: 'ETH' });
    expect(summary.series[0].venue_gap_slots).toBeGreaterThan(200); // 6 h of minutes, 90 served
    expect(summary.series[0].funding_rows).toBeGreaterThanOrEqual(5);
    const m1 = await stored('perp', 'ETH-USDT', '1m', since, now);
    expect(m1.length).toBeLessThanOrEqual(90);
    const m5 = await stored('perp', 'ETH-USDT', '5m', since, Date.parse(m1[0].time) - 1);
    expect(m5.length).toBeGreaterThan(40);
    const v = sim.candle('hyperliquid', 'ETH', '5m', Date.parse(m5[0].time))!;
    expect(m5[0].close).toBe(six(v.close));
    const id = (await s.store.series.idOf({ exchange: 'perp', symbol: 'ETH-USDT' }))!;
    const gaps = await s.store.ingest.gaps(id, '1m', since, now);
    expect(gaps.length).toBeGreaterThan(0);
    // Known gaps are never asked for again.
    const before = sim.requests.length;
    await s.ingest.sync({ symbols: ['ETH-USDT'], exchanges: ['perp'], sinceMs: since });
    const asked = sim.requests.slice(before).filter((r) => r.kind === 'candleSnapshot' && Number((r.params.req as { startTime: number }).startTime) < gaps[0][1]);
    expect(asked).toEqual([]);
    // The quality score counts them as missing.
    const [q] = (await s.quality.recordsOf({ tier: 'pro' } as never, [{ exchange: 'perp', symbol: 'ETH-USDT', timeframe: '1m' }]))[0] as Array<{ presentCandles: number; expectedCandles: number }>;
    expect(q.expectedCandles).toBeGreaterThan(q.presentCandles + 200);
  });

  it('when the venue has a hole, then it is recorded as a venue gap; malformed rows are rejected, never written, and fetched again later', async () => {
    const now = Date.now();
    const since = lastClosedOpen(now, '1m') - 40 * MIN;
    sim.addGap('binance', 'ETHUSDT', since + 10 * MIN, since + 13 * MIN);
    sim.malformNext('binance', 3);
    await s.ingest.sync({ symbols: ['ETH-USDT'], exchanges: ['spot'], sinceMs: since });
    const id = (await s.store.series.idOf({ exchange: 'spot', symbol: 'ETH-USDT' }))!;
    expect(await s.store.ingest.gaps(id, '1m', since, now)).toEqual(expect.arrayContaining([[since + 10 * MIN, since + 13 * MIN]]));
    const rows = await stored('spot', 'ETH-USDT', '1m', since, now);
    for (const r of rows) expect(r.close).toBe(six(sim.candle('binance', 'ETHUSDT', '1m', Date.parse(r.time))!.close));
    // The first three rows served (the sync asks from `since`, oldest first) were malformed: their
    // slots are neither stored nor venue gaps, so they alone stay missing, and the next pass fills them.
    expect(await s.store.ingest.missing(id, '1m', since, lastClosedOpen(now, '1m'), 1000)).toEqual([[since, since + 3 * MIN]]);
    await s.ingest.sync({ symbols: ['ETH-USDT'], exchanges: ['spot'], sinceMs: since });
    expect(await s.store.ingest.missing(id, '1m', since, lastClosedOpen(now, '1m'), 1000)).toEqual([]);
  });

  it('when the venue answers 429 with Retry-After, then the sync waits and succeeds; a 418 ban ends it with the reason', async () => {
    sim.failNext('binance', 1, 429, 1);
    const t0 = Date.now();
    await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['spot'], sinceMs: Date.now() - 300 * MIN });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    sim.failNext('binance', 1, 418, 120);
    const err = await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['spot'], sinceMs: Date.now() - 600 * MIN }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueRefusedError);
    expect((err as Error).message).toMatch(/^binance refused: IP banned \(HTTP 418\) for 1[12]\d s$/);
  });
});
