/**
 * Recording the perpetual's context against the venue simulator, on PGlite and PostgreSQL, on a
 * clock the test moves by hand (so no update lands on a minute boundary by chance): the real
 * Hyperliquid adapter follows activeAssetCtx, ContextRecorder folds updates into minutes and
 * writes them through the LiveWriter at each minute's end, with their events. A minute whose
 * feed was silent is missing; a reconnect in the middle of a minute keeps the minute whole (the
 * snapshot fills only the current minute).
 */
import { openServices, type Services } from '../../src/composition';
import { roundDecimal } from '../../src/domain/decimal';
import { formatTimestamp } from '../../src/domain/time';
import type { Derivatives } from '../../src/domain/market';
import type { MarketEvent } from '../../src/services/events/market-events';
import { ContextRecorder } from '../../src/services/ingest/context-recorder';
import { createVenueAdapters } from '../../src/venues/registry';
import { NO_OBSERVER, type CandleStream, type ContextUpdate } from '../../src/venues/venue';
import { VenueSimulator, type SimContextValues } from '../../tools/venue-sim';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';
import { manualClock } from '../helpers/server';
import { pause, pollUntil } from '../helpers/wait';

const SEC = 1_000;
const MIN = 60_000;
/** A minute boundary that is also a 5m one (no coarser period completes during the test). */
const M0 = Math.floor(Date.now() / (5 * MIN)) * 5 * MIN - 60 * MIN;
/** The simulator pushes a context every 10 s, at 5 s, 15 s, ... 55 s past each minute. */
const SLOTS = [5, 15, 25, 35, 45, 55].map((s) => s * SEC);

/** The row a minute's updates make, as /v1/derivatives serves it. */
function expectedRow(minute: number, updates: SimContextValues[]): Omit<Derivatives, 'openInterestValue'> {
  const oi = updates.map((u) => u.openInterest);
  const last = updates[updates.length - 1];
  const six = (v: string) => roundDecimal(v, 6);
  return {
    time: formatTimestamp(minute),
    openInterest: six(last.openInterest),
    openInterestOpen: six(oi[0]),
    openInterestHigh: six(oi.reduce((a, b) => (Number(b) > Number(a) ? b : a))),
    openInterestLow: six(oi.reduce((a, b) => (Number(b) < Number(a) ? b : a))),
    markPrice: six(last.markPx),
    oraclePrice: six(last.oraclePx),
    midPrice: six(last.midPx),
    predictedFundingRate: roundDecimal(last.funding, 8),
    venuePremium: roundDecimal(last.premium, 8),
  };
}

describe.each(databaseCases())('recording the perpetual context on $name', ({ create }) => {
  const clock = manualClock(M0 + SEC);
  let sim: VenueSimulator;
  let s: Services;
  let drop: (() => Promise<void>) | undefined;
  let stream: CandleStream;
  let recorder: ContextRecorder;
  const received: ContextUpdate[] = [];
  /** The recorder's snapshot of each connect (metaAndAssetCtxs), applied once settled. */
  const snapshots: Array<Promise<void>> = [];
  const events: MarketEvent[] = [];
  let seriesId: number;

  beforeAll(async () => {
    sim = await VenueSimulator.start({ now: clock.now, contextIntervalMs: 10 * SEC, pushIntervalMs: 500 });
    const db = await create();
    drop = db?.drop;
    const config = testConfig({ ...sim.env, ...(db ? { DATABASE_URL: db.url } : {}) });
    s = await openServices(config, { clock: clock.now, ...(db ? {} : { dataDir: 'memory' }) });
    s.events.bus.listen((e) => events.push(e));
    seriesId = await s.store.series.ensure({ exchange: 'perp', symbol: 'BTC-USDT' });
    const adapter = createVenueAdapters(config.ingest, ['hyperliquid'], NO_OBSERVER, clock.now).get('hyperliquid')!;
    const target = { exchange: 'perp', symbol: 'BTC-USDT', instrument: 'BTC', adapter, series: { id: seriesId, symbol: 'BTC-USDT' } };
    recorder = new ContextRecorder([target], s.writer, clock.now, s.logger);
    stream = adapter.follow(['BTC'], {
      onConnected: () => void snapshots.push(recorder.snapshot(adapter, ['BTC'])),
      onDisconnected: () => undefined,
      onClosed: () => undefined,
      onContext: (u) => {
        received.push(u);
        recorder.update(adapter, u);
      },
    });
  });
  afterAll(async () => {
    stream?.close();
    await recorder?.stop();
    await s?.close();
    await drop?.();
    await sim?.close();
  });

  /** Move the clock to `t` and wait for the updates it brings (a slot's push, or none). */
  const step = async (t: number, expect: number) => {
    const before = received.length;
    clock.set(t);
    await pollUntil(async () => received.length, (n) => n >= before + expect, { withinMs: 5_000, everyMs: 20 });
    if (expect === 0) await pause(300); // long enough for a push the feed would send (it looks every 100 ms)
    return received.length - before;
  };
  const rows = async (tf: '1m' | '5m' = '1m') => (await s.store.derivatives.pages([seriesId], tf, new Date(M0 - MIN), new Date(M0 + 10 * MIN), 100)).get(seriesId) ?? [];
  /** The `nth` connect's first push (one update past `before`) has arrived and its snapshot is applied. */
  const connected = async (before: number, nth: number) => {
    await pollUntil(async () => [received.length, snapshots.length], ([n, k]) => n >= before + 1 && k >= nth, { withinMs: 10_000, everyMs: 20 });
    expect(snapshots).toHaveLength(nth);
    await snapshots[nth - 1];
  };
  /** End a minute: the recorder writes it, as its schedule would a millisecond after the boundary. */
  const endMinute = async (next: number) => {
    clock.set(next + 1);
    recorder.flush();
    await recorder.idle();
  };

  it('when a minute is followed, then its row is the last update before its end, open interest the OHLC of its updates, with an event', async () => {
    // Connected at M0 + 1 s: the subscription's first push and the snapshot, both of that moment.
    await connected(0, 1);
    expect(sim.requests.filter((r) => r.kind === 'metaAndAssetCtxs')).toHaveLength(1);
    for (const at of SLOTS) expect(await step(M0 + at, 1)).toBe(1);
    await endMinute(M0 + MIN);
    const updates = [sim.context('BTC', M0 + SEC), sim.context('BTC', M0 + SEC), ...SLOTS.map((at) => sim.context('BTC', M0 + at))];
    const [row] = await rows();
    expect(row).toMatchObject(expectedRow(M0, updates));
    expect(row.openInterestValue).toMatch(/^\d+\.\d{6}$/);
    await pollUntil(async () => events.filter((e) => e.type === 'derivatives').length, (n) => n > 0, { withinMs: 5_000 });
    const event = events.find((e) => e.type === 'derivatives');
    expect(event).toMatchObject({ type: 'derivatives', exchange: 'perp', symbol: 'BTC-USDT', timeframe: '1m', rows: [row] });
  });

  it('when the context feed is silent for a whole minute, then that minute is missing, nothing repeated', async () => {
    const m1 = M0 + MIN;
    sim.setContextSilent(true);
    for (const at of SLOTS) expect(await step(m1 + at, 0)).toBe(0);
    await endMinute(m1 + MIN);
    expect((await rows()).map((r) => r.time)).toEqual([formatTimestamp(M0)]);
    sim.setContextSilent(false);
  });

  it('when the socket drops in the middle of a minute, then it reconnects, the snapshot fills that minute only and the minute is whole', async () => {
    const m2 = M0 + 2 * MIN;
    expect(await step(m2 + SLOTS[0], 1)).toBe(1);
    const snapshots = sim.requests.filter((r) => r.kind === 'metaAndAssetCtxs').length;
    clock.set(m2 + 20 * SEC);
    sim.dropSockets('hyperliquid');
    // The new subscription's first push and the snapshot, both of the moment of the reconnect.
    await connected(received.length, 2);
    expect(sim.requests.filter((r) => r.kind === 'metaAndAssetCtxs')).toHaveLength(snapshots + 1);
    for (const at of SLOTS.slice(2)) expect(await step(m2 + at, 1)).toBe(1);
    await endMinute(m2 + MIN);
    const updates = [sim.context('BTC', m2 + SLOTS[0]), sim.context('BTC', m2 + 20 * SEC), sim.context('BTC', m2 + 20 * SEC), ...SLOTS.slice(2).map((at) => sim.context('BTC', m2 + at))];
    const all = await rows();
    expect(all.map((r) => r.time)).toEqual([formatTimestamp(M0), formatTimestamp(m2)]);
    expect(all[1]).toMatchObject(expectedRow(m2, updates));
    // The minute the feed was silent stays missing; no 5m row until its bucket closes.
    expect(await rows('5m')).toEqual([]);
    const coverage = await s.markets.summariesOf([{ exchange: 'perp', symbol: 'BTC-USDT' }]);
    expect(coverage[0].coverage.find((c) => c.timeframe === 'derivatives')).toEqual({ timeframe: 'derivatives', first: all[0].time, last: all[1].time });
  });
});
