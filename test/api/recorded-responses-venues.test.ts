/**
 * The recorded responses of the exchanges beyond the spec's two (recorded-suite.ts), every
 * exchange served; the spec's set (recorded-responses.test.ts) runs with EXCHANGES=perp,spot.
 * Re-record: `RECORD_RESPONSES=1 npm test -- test/api/recorded-responses-venues.test.ts`.
 */
import path from 'node:path';
import type { Services } from '../../src/composition';
import { csvFile } from '../helpers/csv';
import { HOUR, HOURS, T0, hourly, iso, loadFixtures, perpClose, rateAt } from '../helpers/fixtures';
import { VENUE_CASES } from './recorded-responses-venues.cases';
import { recordedResponses } from './recorded-suite';

/** The fixtures, and Binance USD-M's BTC-USDT: hourly candles a little off Hyperliquid's, funding every 8 hours. */
async function load(s: Services, nowMs: number): Promise<void> {
  await loadFixtures(s, nowMs);
  const market = { exchange: 'binance-perp', symbol: 'BTC-USDT' };
  const r = await s.importer.importCandles(market, '1h', csvFile(hourly((h) => perpClose(h) + 0.03)));
  await s.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, nowMs, r.bars);
  const funding = ['time,rate'];
  for (let h = 0; h < HOURS; h += 8) funding.push(`${iso(T0 + h * HOUR)},${(rateAt(h) * 8).toFixed(8)}`);
  const f = await s.importer.importFunding(market, csvFile(funding));
  await s.recompute.afterFundingChanged(f.seriesId);
}

recordedResponses({
  title: 'recorded responses of further exchanges',
  file: path.join(__dirname, '..', 'fixtures', 'recorded-responses-venues.json'),
  cases: VENUE_CASES,
  env: { EXCHANGES: 'perp,spot,binance-perp' },
  load,
});
