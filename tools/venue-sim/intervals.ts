/**
 * Candle intervals as the venues name them, with the calendar each one follows: fixed
 * periods aligned on the Unix epoch, weeks opening on Monday 00:00 UTC, months on the 1st.
 */

export interface Interval {
  readonly name: string;
  /** Open time of the candle containing `t`. */
  floor(t: number): number;
  /** Open time `k` candles after (or before, k < 0) the candle opening at `open`. */
  add(open: number, k: number): number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** 1970-01-05, the first Monday after the epoch. */
const FIRST_MONDAY = 4 * DAY;

function fixed(name: string, ms: number, offset = 0): Interval {
  return {
    name,
    floor: (t) => offset + Math.floor((t - offset) / ms) * ms,
    add: (open, k) => open + k * ms,
  };
}

const monthly: Interval = {
  name: '1M',
  floor(t) {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  },
  add(open, k) {
    const d = new Date(open);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, 1);
  },
};

const COMMON = [
  fixed('1m', MINUTE),
  fixed('3m', 3 * MINUTE),
  fixed('5m', 5 * MINUTE),
  fixed('15m', 15 * MINUTE),
  fixed('30m', 30 * MINUTE),
  fixed('1h', 60 * MINUTE),
  fixed('2h', 120 * MINUTE),
  fixed('4h', 240 * MINUTE),
  fixed('8h', 480 * MINUTE),
  fixed('12h', 720 * MINUTE),
  fixed('1d', DAY),
  fixed('3d', 3 * DAY),
  fixed('1w', 7 * DAY, FIRST_MONDAY),
  monthly,
];

const byName = (list: Interval[]) => new Map(list.map((i) => [i.name, i]));

/** Hyperliquid's documented intervals. */
export const HYPERLIQUID_INTERVALS = byName(COMMON);
/** Binance spot's kline intervals (its `1s` is not simulated). */
export const BINANCE_INTERVALS = byName([...COMMON, fixed('6h', 360 * MINUTE)]);

/** Bybit v5's kline intervals: minutes as numbers, then D, W (from Monday) and M, on the same calendar. */
export const BYBIT_INTERVALS = byName(
  (
    [
      ['1', '1m'], ['3', '3m'], ['5', '5m'], ['15', '15m'], ['30', '30m'], ['60', '1h'], ['120', '2h'],
      ['240', '4h'], ['360', '6h'], ['720', '12h'], ['D', '1d'], ['W', '1w'], ['M', '1M'],
    ] as const
  ).map(([name, same]) => ({ ...BINANCE_INTERVALS.get(same)!, name })),
);

/** Open time of the first candle opening at or after `t`. */
export function ceilOpen(interval: Interval, t: number): number {
  const open = interval.floor(t);
  return open === t ? open : interval.add(open, 1);
}
