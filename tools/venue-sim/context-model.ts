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

/** A modelled value a venue makes minute (or longer) klines of: mark, index (the oracle) or premium. */
export type SampledValue = 'premium' | 'markPrice' | 'oraclePrice';

/**
 * The samples of `of` the kline opening at `open` (next one at `next`) is made of: every 5 s of
 * a minute, at most 60 a longer candle; while it is open, those up to `now` (at least one).
 */
export function samplesOf(coin: string, of: SampledValue, open: number, next: number, now: number): number[] {
  const step = Math.max(5_000, (next - open) / 60);
  const samples: number[] = [];
  for (let t = open; t < next && t <= now; t += step) samples.push(modelContext(coin, t)[of]);
  return samples.length > 0 ? samples : [modelContext(coin, open)[of]];
}
