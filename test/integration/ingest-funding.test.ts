/**
 * Funding as Hyperliquid really records it (its shapes in test/fixtures/venues/hyperliquid-
 * funding-recorded.json), through `mds sync` against the venue simulator on each database: a
 * settlement stamped seconds or minutes late is its hour's rate, a second one in an hour is
 * counted and dropped, an hour the venue lacks is asked once and then recorded as a known venue
 * gap, and an hour missing inside the stored range is repaired on the next sync.
 */
import { openServices, type Services } from '../../src/composition';
import { testConfig } from '../helpers/config';
import { databaseCases } from '../helpers/databases';
import { VenueSimulator } from '../../tools/venue-sim';

const HOUR = 3_600_000;

describe.each(databaseCases())('funding settlements as recorded, through mds sync, on $name', ({ create }) => {
  let sim: VenueSimulator;
  let s: Services;
  let drop: (() => Promise<void>) | undefined;
  let id: number;
  const now = Date.now();
  const h = Math.floor(now / HOUR) * HOUR - 8 * HOUR;
  const hours = async () => ((await s.store.funding.pages([id], new Date(h - 4 * HOUR), new Date(now), 1000)).get(id) ?? []).map((r) => (Date.parse(r.time) - h) / HOUR);
  const fundingAsks = () => sim.requests.filter((r) => r.kind === 'fundingHistory');

  beforeAll(async () => {
    sim = await VenueSimulator.start({ hyperliquidCandleLimit: 60 });
    // As the recorded history has them: 5.457 s late, 23 min 53.04 s late, an hour never settled, an hour settled twice.
    sim.setFundingSettlements('BTC', h, [h + 5_457]);
    sim.setFundingSettlements('BTC', h + HOUR, [h + HOUR + 1_433_040]);
    sim.setFundingSettlements('BTC', h + 2 * HOUR, []);
    sim.setFundingSettlements('BTC', h + 3 * HOUR, [h + 3 * HOUR + 2_900, h + 3 * HOUR + 120]);
    const db = await create();
    drop = db?.drop;
    s = await openServices(testConfig({ ...sim.env, ...(db ? { DATABASE_URL: db.url } : {}) }), db ? {} : { dataDir: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
    await drop?.();
    await sim?.close();
  });

  it('when a sync meets late, missing and doubled settlements, then each hour has its rate, the doubled one the nearest, and the absent hour is a known gap', async () => {
    const summary = await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['perp'], sinceMs: h - 3 * HOUR });
    id = (await s.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!;
    const stored = await hours();
    expect(stored.slice(0, 7)).toEqual([-3, -2, -1, 0, 1, 3, 4]);
    expect(summary.series[0].funding_rows).toBe(stored.length);
    const rows = (await s.store.funding.pages([id], new Date(h + 3 * HOUR), new Date(h + 3 * HOUR), 1)).get(id)!;
    // The settlement 120 ms after the hour, not the one 2.9 s after (the simulator's second settlement is 1e-8 off).
    expect(rows[0].rate).toBe(Number(sim.fundingRate('BTC', h + 3 * HOUR)).toFixed(8));
    expect(await s.store.ingest.gaps(id, 'funding', h - 4 * HOUR, now)).toEqual([[h + 2 * HOUR, h + 3 * HOUR]]);
    const metrics = await s.metrics.render();
    expect(metrics).toMatch(/mds_ingest_rejected_rows_total\{venue="hyperliquid",kind="duplicate"\} 1/);
  });

  it('when an hour inside the stored range is missing (an older rule dropped it), then the next sync asks once and stores it; a known gap is never asked again', async () => {
    await s.store.db.query('DELETE FROM funding_rates WHERE series_id = $1 AND time = $2', [id, new Date(h + HOUR)]);
    const before = fundingAsks().length;
    await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['perp'], sinceMs: h - 3 * HOUR });
    expect((await hours()).slice(0, 7)).toEqual([-3, -2, -1, 0, 1, 3, 4]);
    const asked = fundingAsks().slice(before);
    const repair = asked.filter((r) => r.params.endTime !== undefined);
    expect(repair.map((r) => [r.params.startTime, r.params.endTime])).toEqual([[h + HOUR - 5_000, h + 2 * HOUR - 5_001]]);
    const again = fundingAsks().length;
    await s.ingest.sync({ symbols: ['BTC-USDT'], exchanges: ['perp'], sinceMs: h - 3 * HOUR });
    expect(fundingAsks().slice(again).filter((r) => r.params.endTime !== undefined)).toEqual([]);
  });
});
