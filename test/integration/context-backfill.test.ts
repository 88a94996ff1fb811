/**
 * The context of the interval perpetuals (Binance USD-M, Bybit) backfilled through `mds sync`
 * against the venue simulator, on each venue and database: every closed minute takes the closes of the venue's mark, index and premium klines
 * with open interest and the predicted rate unknown, a recorded minute is never replaced, the 5m
 * rows take the venue's 5-minute open interest unless their minutes recorded it, the coarser
 * rows follow, and a second sync asks the venue for nothing it has.
 */
import { openServices, type Services } from '../../src/composition';
import type { DerivativesInput } from '../../src/domain/derivatives';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';
import { PERP_VENUES } from '../helpers/perp-venues';
import { VenueSimulator } from '../../tools/venue-sim';

const MIN = 60_000;
const HOUR = 3_600_000;

const CASES = databaseCases().flatMap((db) => PERP_VENUES.map((p) => ({ ...db, p, label: `${p.exchange} on ${db.name}` })));

describe.each(CASES)('the context backfill of $label', ({ create, p }) => {
  let sim: VenueSimulator;
  let s: Services;
  let drop: (() => Promise<void>) | undefined;
  // Two whole hours before the last one: their 5m and 1h rows are complete.
  const since = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
  /** A whole 5m bucket recorded live before the backfill (open interest 1,000 to 1,004). */
  const recorded = since + 30 * MIN;
  const recordedRow = (i: number): DerivativesInput => ({
    time: recorded + i * MIN,
    openInterestOpen: `${1000 + i}`,
    openInterestHigh: `${1000 + i}`,
    openInterestLow: `${1000 + i}`,
    openInterest: `${1000 + i}`,
    markPrice: '1.5',
    oraclePrice: '1.25',
    midPrice: '1.5',
    predictedFundingRate: '0.0001',
    venuePremium: null,
  });

  beforeAll(async () => {
    sim = await VenueSimulator.start({ binancePerp: ['BTCUSDT'], bybit: ['BTCUSDT'] });
    const db = await create();
    drop = db?.drop;
    s = await openServices(testConfig({ ...sim.env, EXCHANGES: `perp,spot,${p.exchange}`, ...(db ? { DATABASE_URL: db.url } : {}) }), db ? {} : { dataDir: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
    await drop?.();
    await sim?.close();
  });

  const rowsOf = async (id: number, tf: '1m' | '5m' | '1h', from: number, to: number) => (await s.store.derivatives.pages([id], tf, new Date(from), new Date(to), 10_000)).get(id) ?? [];
  const plain = (v: string | null) => (v === null ? null : Number(v));

  it('when BTC-USDT is synced with one 5m bucket already recorded, then every other closed minute is backfilled and the recorded ones are kept', async () => {
    const id = await s.store.series.ensure({ exchange: p.exchange, symbol: 'BTC-USDT' });
    await s.store.transaction((tx) => tx.derivatives.upsertMinutes([0, 1, 2, 3, 4].map((i) => ({ seriesId: id, row: recordedRow(i) }))));

    const summary = await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: [p.exchange], sinceMs: since });
    const last = Math.floor(Date.now() / MIN) * MIN - MIN;
    const minutes = await rowsOf(id, '1m', since, last);
    expect(summary.series[0].context_rows).toBe(minutes.length - 5);
    // Every minute from the first to the last closed one when the sync began, once.
    expect(minutes.length).toBeGreaterThanOrEqual(120);
    expect(minutes.map((r) => Date.parse(r.time))).toEqual(minutes.map((_, i) => since + i * MIN));

    const kept = minutes.filter((r) => Date.parse(r.time) >= recorded && Date.parse(r.time) < recorded + 5 * MIN);
    expect(kept.map((r) => [plain(r.openInterest), plain(r.markPrice), plain(r.predictedFundingRate)])).toEqual([0, 1, 2, 3, 4].map((i) => [1000 + i, 1.5, 0.0001]));

    const minute = since + 7 * MIN;
    const backfilled = minutes.find((r) => Date.parse(r.time) === minute)!;
    expect(backfilled).toMatchObject({ openInterest: null, openInterestOpen: null, openInterestValue: null, midPrice: null, predictedFundingRate: null });
    expect(Number(backfilled.markPrice)).toBe(Number(await p.pastClose(sim, 'mark', minute)));
    expect(Number(backfilled.oraclePrice)).toBe(Number(await p.pastClose(sim, 'index', minute)));
    expect(Number(backfilled.venuePremium)).toBe(Number(await p.pastClose(sim, 'premium', minute)));
  });

  it('when the 5-minute open interest was backfilled, then a 5m row takes the value stamped at its close unless its minutes recorded it, and the hours follow', async () => {
    const id = (await s.store.series.idOf({ exchange: p.exchange, symbol: 'BTC-USDT' }))!;
    const fives = await rowsOf(id, '5m', since, since + 2 * HOUR - 5 * MIN);
    expect(fives).toHaveLength(24);
    const stamped = await p.openInterestAt(sim, since + 5 * MIN); // the close of the first bucket
    const first = fives[0]; // served with 6 places
    expect([first.openInterestOpen, first.openInterestHigh, first.openInterestLow, first.openInterest].map(plain)).toEqual(Array(4).fill(Number(Number(stamped).toFixed(6))));
    expect(first.predictedFundingRate).toBeNull();

    // The recorded bucket rolls up from its minutes: first, highest, lowest, last.
    const own = fives.find((r) => Date.parse(r.time) === recorded)!;
    expect([own.openInterestOpen, own.openInterestHigh, own.openInterestLow, own.openInterest].map(plain)).toEqual([1000, 1004, 1000, 1004]);
    expect(plain(own.predictedFundingRate)).toBe(0.0001);

    // An hour whose twelve 5m rows all know open interest: open of the first, close of the last.
    const [hour] = await rowsOf(id, '1h', since, since);
    expect(plain(hour.openInterestOpen)).toBe(plain(fives[0].openInterestOpen));
    expect(plain(hour.openInterest)).toBe(plain(fives[11].openInterest));
    expect(plain(hour.openInterestHigh)).toBe(Math.max(...fives.slice(0, 12).map((r) => Number(r.openInterestHigh))));
    expect(hour.openInterestValue).not.toBeNull();
  });

  it('when synced again, then the venue is asked for no past context it already gave', async () => {
    const asked = () => sim.requests.filter((r) => r.venue === p.venue && p.historyKinds.test(r.kind)).length;
    const before = asked();
    const id = (await s.store.series.idOf({ exchange: p.exchange, symbol: 'BTC-USDT' }))!;
    const rows = (await rowsOf(id, '1m', since, Date.now())).length;
    await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: [p.exchange], sinceMs: since });
    const added = (await rowsOf(id, '1m', since, Date.now())).length - rows;
    // Only the minutes that closed since (a few at most) are asked: one request of each kind per run of them.
    expect(added).toBeLessThanOrEqual(3);
    expect(asked() - before).toBeLessThanOrEqual(added > 0 ? 4 : 1);
  });
});
