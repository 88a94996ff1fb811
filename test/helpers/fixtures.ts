/**
 * Known market data for API tests, imported through the real CSV import and rollups.
 * Values are simple enough to recompute independently in the tests.
 */
import type { Services } from '../../src/composition';
import { csvFile } from './csv';

export const T0 = Date.UTC(2024, 0, 1); // first hour of every fixture series
export const HOURS = 800;
export const MINUTES = 2500;
export const iso = (ms: number) => new Date(ms).toISOString();
export const HOUR = 3_600_000;
export const MINUTE = 60_000;

/** Spot 1h close at hour h; perp is spot + 0.05 (a premium of 0.05 / spot). */
export const spotClose = (h: number) => 100 + (h % 17);
export const perpClose = (h: number) => spotClose(h) + 0.05;
/** Hourly funding rate at hour h, 8 decimals. */
export const rateAt = (h: number) => Number(((((h * 37) % 101) - 50) * 1e-6 + 0.00001234).toFixed(8));

export const FIXTURE_SYMBOLS = ['BTC-USDT', 'ETH-USDT', 'SOL-USDT', 'BNB-USDT', 'XRP-USDT'];

export function hourly(close: (h: number) => number): string[] {
  const rows = ['time,open,high,low,close,volume'];
  for (let h = 0; h < HOURS; h++) {
    const c = close(h);
    const o = h === 0 ? c : close(h - 1);
    rows.push(`${iso(T0 + h * HOUR)},${o},${Math.max(o, c) + 1},${Math.min(o, c) - 1},${c},${(h % 7) + 0.5}`);
  }
  return rows;
}

/** 1m closes for multi-asset alignment: ETH has every minute, SOL lacks minute 3. */
export const minuteClose = (symbol: string, m: number) => (symbol === 'ETH-USDT' ? 2000 + m / 100 : 150 + m / 1000);

export async function loadFixtures(s: Services, nowMs: number): Promise<void> {
  for (const symbol of FIXTURE_SYMBOLS) {
    const shift = FIXTURE_SYMBOLS.indexOf(symbol) * 1000;
    for (const [exchange, close] of [
      ['spot', (h: number) => spotClose(h) + shift],
      ['perp', (h: number) => perpClose(h) + shift],
    ] as const) {
      const r = await s.importer.importCandles({ exchange, symbol }, '1h', csvFile(hourly(close)));
      await s.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, nowMs, r.bars);
    }
  }
  const funding = ['time,rate'];
  for (let h = 0; h < HOURS; h++) funding.push(`${iso(T0 + h * HOUR)},${rateAt(h).toFixed(8)}`);
  const f = await s.importer.importFunding({ exchange: 'perp', symbol: 'BTC-USDT' }, csvFile(funding));
  await s.recompute.afterFundingChanged(f.seriesId);

  for (const symbol of ['ETH-USDT', 'SOL-USDT']) {
    const rows = ['time,open,high,low,close,volume'];
    for (let m = 0; m < MINUTES; m++) {
      if (symbol === 'SOL-USDT' && m === 3) continue;
      const c = minuteClose(symbol, m);
      rows.push(`${iso(T0 + m * MINUTE)},${c},${c},${c},${c},1`);
    }
    const r = await s.importer.importCandles({ exchange: 'spot', symbol }, '1m', csvFile(rows));
    await s.recompute.afterCandlesChanged(r.seriesId, '1m', r.from!, r.to!, nowMs, r.bars);
  }
}
