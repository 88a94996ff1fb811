/**
 * Funding on venues that settle every 8, 4 or 1 hours (docs/DECISIONS.md, "Funding intervals"),
 * on each database: each row's interval is the hours since the settlement before it (a longer
 * distance than the venue's longest is a gap and keeps the interval before), recomputed when a
 * row lands before others; the z-scores use the hourly rate over floor(720 / h) settlements;
 * the 24-hour and 7-day sums count settlements in (t - 24 h, t] once the history is that long;
 * repair looks for settlements at the series' interval.
 */
import type { Services } from '../../src/composition';
import { oneBatch } from '../../src/db/bulk-upsert';
import { databaseCases } from '../helpers/databases';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const EIGHT = { maxHours: 8, firstHours: 8 };

/** A deterministic rate per settlement, 8 places, varied enough for a deviation. */
const rateAt = (i: number) => ((Math.sin(i * 1.7) * 3 + Math.cos(i * 0.3)) * 1e-4).toFixed(8);

/** Sample z-score of values[i] over the `n` values ending there (null while fewer). */
function zscore(values: readonly number[], i: number, n: number): number | null {
  if (i + 1 < n) return null;
  const w = values.slice(i + 1 - n, i + 1);
  const mean = w.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(w.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  return (values[i] - mean) / sd;
}

describe.each(databaseCases())('funding intervals on $name', (db) => {
  let s: Services;
  let id: number;
  const rows = (from = T0 - 1000 * HOUR, to = T0 + 10_000 * HOUR) => s.store.funding.pages([id], new Date(from), new Date(to), 10_000).then((m) => m.get(id) ?? []);
  const write = (times: number[], intervals = EIGHT) =>
    s.store.transaction((tx) => tx.funding.upsert(id, oneBatch(times.map((t) => ({ time: t, rate: rateAt(Math.round((t - T0) / HOUR)) }))), intervals));

  beforeAll(async () => {
    s = await db.open();
    id = await s.store.series.ensure({ exchange: 'perp', symbol: 'ETH-USDT' });
  });
  afterAll(async () => {
    await s?.close();
    await db.cleanup();
  });

  it('when settlements are 8 hours apart, then a 24-hour gap keeps 8, a change to 4 hours shows at once, and the hourly rate is rate / interval', async () => {
    const times = [0, 8, 16, 40, 48, 52, 56, 60].map((h) => T0 + h * HOUR);
    await write(times);
    const got = await rows();
    expect(got.map((r) => r.intervalHours)).toEqual(['8', '8', '8', '8', '8', '4', '4', '4']);
    expect(got[5].rateHourly).toBe((Number(got[5].rate) / 4).toFixed(8));
    expect(got[0].rateHourly).toBe((Number(got[0].rate) / 8).toFixed(8));
  });

  it('when a missing settlement is written later, then the rows after it follow', async () => {
    await s.store.db.query('DELETE FROM funding_rates WHERE series_id = $1', [id]);
    await write([0, 8, 24].map((h) => T0 + h * HOUR), { maxHours: 8, firstHours: 4 });
    expect((await rows()).map((r) => r.intervalHours)).toEqual(['4', '8', '8']);
    // The settlement at 16 h arrives: 24 h is now 8 hours after it (unchanged), and 16 h itself is 8.
    await write([T0 + 16 * HOUR]);
    expect((await rows()).map((r) => r.intervalHours)).toEqual(['4', '8', '8', '8']);
    // An earlier first row: the old first row becomes 4 hours after it.
    await write([T0 - 4 * HOUR]);
    expect((await rows()).map((r) => r.intervalHours)).toEqual(['8', '4', '8', '8', '8']);
  });

  it('when an 8-hourly series is read normalized, then the z-score is of the hourly rate over the last 90 settlements', async () => {
    await s.store.db.query('DELETE FROM funding_rates WHERE series_id = $1', [id]);
    const times = Array.from({ length: 120 }, (_, i) => T0 + i * 8 * HOUR);
    await write(times);
    const page = await s.store.funding.page(id, { spot: null, maxHours: 8 }, new Date(times[0]), new Date(times[119]), 1000, null);
    const hourly = page.page.data.map((r) => Number(r.rate) / 8);
    expect(page.page.data[88].rateNormalized).toBeNull();
    for (const i of [89, 100, 119]) expect(Number(page.page.data[i].rateNormalized)).toBeCloseTo(zscore(hourly, i, 90)!, 5);
    // A page starting late still sees the 89 settlements before it.
    const late = await s.store.funding.page(id, { spot: null, maxHours: 8 }, new Date(times[100]), new Date(times[100]), 10, null);
    expect(late.page.data[0].rateNormalized).toBe(page.page.data[100].rateNormalized);
  });

  it('when funding features are computed for an 8-hourly venue, then sums cover (t - 24 h, t] and (t - 7 d, t] once that old, and funding_norm matches the read', async () => {
    await s.store.transaction((tx) => tx.features.writeFundingFeatures(id, null, 8));
    const names = ['funding_norm', 'funding_cumulative_24h', 'funding_cumulative_7d'];
    const got = (await s.store.features.pages([id], 'funding', names, new Date(T0), new Date(T0 + 2000 * HOUR), 1000)).get(id)!;
    const rates = got.map((_, i) => Number(rateAt(i * 8)));
    expect(got[2].funding_cumulative_24h).toBeNull();
    expect(Number(got[3].funding_cumulative_24h)).toBeCloseTo(rates[1] + rates[2] + rates[3], 6);
    expect(got[20].funding_cumulative_7d).toBeNull();
    expect(Number(got[21].funding_cumulative_7d)).toBeCloseTo(rates.slice(1, 22).reduce((a, b) => a + b, 0), 6);
    expect(got[88].funding_norm).toBeNull();
    expect(Number(got[100].funding_norm)).toBeCloseTo(zscore(rates.map((r) => r / 8), 100, 90)!, 5);
  });

  it('when an 8-hourly series lacks a settlement inside its range, then repair looks for it at 8 hours, not every hour', async () => {
    await s.store.db.query('DELETE FROM funding_rates WHERE series_id = $1 AND time = $2', [id, new Date(T0 + 16 * HOUR)]);
    expect(await s.store.ingest.missingFunding(id, 100)).toEqual([[T0 + 16 * HOUR, T0 + 24 * HOUR]]);
  });
});
