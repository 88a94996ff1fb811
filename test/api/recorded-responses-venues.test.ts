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

/** A perpetual's BTC-USDT: hourly candles `offset` off Hyperliquid's, funding every `hours` hours. */
async function loadPerpetual(s: Services, nowMs: number, exchange: string, offset: number, hours: number): Promise<void> {
  const market = { exchange, symbol: 'BTC-USDT' };
  const r = await s.importer.importCandles(market, '1h', csvFile(hourly((h) => perpClose(h) + offset)));
  await s.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, nowMs, r.bars);
  const funding = ['time,rate'];
  for (let h = 0; h < HOURS; h += hours) funding.push(`${iso(T0 + h * HOUR)},${(rateAt(h) * hours).toFixed(8)}`);
  const f = await s.importer.importFunding(market, csvFile(funding));
  await s.recompute.afterFundingChanged(f.seriesId);
}

/** The fixtures, Binance USD-M's BTC-USDT (8-hourly) and Bybit's (4-hourly). */
async function load(s: Services, nowMs: number): Promise<void> {
  await loadFixtures(s, nowMs);
  await loadPerpetual(s, nowMs, 'binance-perp', 0.03, 8);
  await loadPerpetual(s, nowMs, 'bybit-perp', -0.02, 4);
}

recordedResponses({
  title: 'recorded responses of further exchanges',
  file: path.join(__dirname, '..', 'fixtures', 'recorded-responses-venues.json'),
  cases: VENUE_CASES,
  env: { EXCHANGES: 'perp,spot,binance-perp,bybit-perp' },
  load,
});
