/**
 * The simulated perpetual context (Hyperliquid's asset context) as numbers at a moment: the mark
 * follows the perpetual's price, the oracle and mid sit a few basis points off it, open interest
 * drifts slowly with per-second noise, the predicted funding follows the coming hour's rate.
 * A pure function of (coin, time), so a test can recompute any update it was sent.
 */
import { drawOf, modelFunding, perpPriceOf } from './price-model';

export interface RawContext {
  openInterest: number;
  markPrice: number;
  oraclePrice: number;
  midPrice: number;
  fundingRate: number;
  premium: number;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
const OPEN_INTEREST: Record<string, number> = { BTC: 30_000, ETH: 500_000 };

export function modelContext(coin: string, t: number): RawContext {
  const second = Math.floor(t / 1000);
  const mark = perpPriceOf(coin, t);
  const oracle = mark * (1 - 0.0003 * Math.sin((2 * Math.PI * t) / (1.7 * DAY)));
  const mid = mark * (1 + 0.00004 * (2 * drawOf(coin, 0x2545f491, second) - 1));
  const base = OPEN_INTEREST[coin] ?? 1_000_000;
  const drift = 0.05 * Math.sin((2 * Math.PI * t) / (1.3 * DAY)) + 0.001 * (2 * drawOf(coin, 0x4f1bbcdc, second) - 1);
  const next = Math.floor(t / HOUR) * HOUR + HOUR;
  return {
    openInterest: base * (1 + drift),
    markPrice: mark,
    oraclePrice: oracle,
    midPrice: mid,
    fundingRate: modelFunding(coin, next).rate,
    premium: (mark - oracle) / oracle,
  };
}
