/**
 * The simulated market as pure numbers: every value is a function of (coin, venue, interval, open
 * time) alone, so the same request always gets the same answer. A candle opens at the price at its
 * open time and closes at the price at the next, so candles chain on every interval. Prices: slow
 * waves plus per-minute hash noise around a base (BTC ~60,000, ETH ~3,000, others ~100), Binance
 * and Bybit within ±0.05% of Hyperliquid. Cheap by design: a few sines and hashes per candle.
 */
import type { Interval } from './intervals';
import { VENUES, perVenue, type SimVenue } from './venues';

/** A candle's values before the venue formats them. */
export interface RawCandle {
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  trades: number;
  /** Share of the volume bought by takers (Binance's taker-buy columns). */
  takerShare: number;
}

export interface RawFunding {
  /** The hour plus the few milliseconds the venue takes to settle it. */
  time: number;
  rate: number;
  premium: number;
}

const TAU = 2 * Math.PI;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const WAVES = [
  { periodMs: 37 * DAY, amplitude: 0.08 },
  { periodMs: 5.3 * DAY, amplitude: 0.03 },
  { periodMs: 0.61 * DAY, amplitude: 0.008 },
  { periodMs: 0.07 * DAY, amplitude: 0.002 },
];
const MINUTE_NOISE = 0.0005;
/** Spot's basis to the perpetual: a slow wave plus noise, together under 0.05%. */
const BASIS_WAVE = 0.0003;
const BASIS_NOISE = 0.00015;
/** High/low excursion beyond the body, per sqrt(minute). */
const RANGE_PER_SQRT_MINUTE = 0.0005;
const TRADES_PER_MINUTE = 30;
/** Hyperliquid's funding: premium plus clamp(interest - premium, ±cap), paid hourly (1/8). */
const FUNDING_INTEREST = 0.0001;
const FUNDING_CAP = 0.0005;

interface CoinProfile {
  seed: number;
  logBase: number;
  phases: number[];
  volumePerMinute: number;
  last: Record<SimVenue, { t: number; price: number }>;
}

/** A 32-bit hash of two 32-bit integers. */
function hash2(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A deterministic draw in [0, 1). */
const draw = (seed: number, n: number) => hash2(seed, n) / 4_294_967_296;

function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const BASES: Record<string, { price: number; volumePerMinute: number }> = {
  BTC: { price: 60_000, volumePerMinute: 8 },
  ETH: { price: 3_000, volumePerMinute: 120 },
};

const profiles = new Map<string, CoinProfile>();

function profileOf(coin: string): CoinProfile {
  let p = profiles.get(coin);
  if (p === undefined) {
    const seed = seedOf(coin);
    const base = BASES[coin] ?? { price: 100 * (0.8 + 0.45 * draw(seed, 1)), volumePerMinute: 4_000 };
    p = {
      seed,
      logBase: Math.log(base.price),
      phases: WAVES.map((_, i) => TAU * draw(seed, 10 + i)),
      volumePerMinute: base.volumePerMinute,
      last: perVenue(() => ({ t: Number.NaN, price: 0 })),
    };
    profiles.set(coin, p);
  }
  return p;
}

/** The perpetual's price of `coin` at `t` (its context's mark price). */
export function perpPriceOf(coin: string, t: number): number {
  return perpPrice(profileOf(coin), t);
}

/** A deterministic draw in [0, 1) for `coin`, salted, at step `n`. */
export function drawOf(coin: string, salt: number, n: number): number {
  return draw(profileOf(coin).seed ^ salt, n);
}

/** The perpetual's price at `t` (Hyperliquid). */
function perpPrice(p: CoinProfile, t: number): number {
  let x = p.logBase;
  for (let i = 0; i < WAVES.length; i++) x += WAVES[i].amplitude * Math.sin((TAU * t) / WAVES[i].periodMs + p.phases[i]);
  return Math.exp(x + MINUTE_NOISE * (2 * draw(p.seed, Math.floor(t / MINUTE)) - 1));
}

function spotPrice(p: CoinProfile, t: number): number {
  const noise = 2 * draw(p.seed ^ 0x5bd1e995, Math.floor(t / MINUTE)) - 1;
  return perpPrice(p, t) * (1 + BASIS_WAVE * Math.sin((TAU * t) / (2.1 * DAY) + p.phases[0]) + BASIS_NOISE * noise);
}

/** How another venue's perpetual sits off Hyperliquid's: a slow wave and its own minute noise. */
const PERP_OFFSETS = {
  'binance-perp': { salt: 0x1b873593, wave: 0.0002, periodMs: 1.3 * DAY, phase: 1 },
  bybit: { salt: 0x68e31da4, wave: 0.00015, periodMs: 1.9 * DAY, phase: 2 },
};

/** Binance USD-M's or Bybit's perpetual: Hyperliquid's price a few basis points off. */
function offsetPerpPrice(venue: keyof typeof PERP_OFFSETS, p: CoinProfile, t: number): number {
  const o = PERP_OFFSETS[venue];
  const noise = 2 * draw(p.seed ^ o.salt, Math.floor(t / MINUTE)) - 1;
  return perpPrice(p, t) * (1 + o.wave * Math.sin((TAU * t) / o.periodMs + p.phases[o.phase]) + 0.00005 * noise);
}

/** The venue's price at `t`; the last one is kept, since a candle's open is the previous candle's close. */
function priceAt(venue: SimVenue, p: CoinProfile, t: number): number {
  const last = p.last[venue];
  if (last.t !== t) {
    last.t = t;
    last.price = venue === 'hyperliquid' ? perpPrice(p, t) : venue === 'binance' ? spotPrice(p, t) : offsetPerpPrice(venue, p, t);
  }
  return last.price;
}

/**
 * The candle opening at `open`, as it stands after `progress` (0..1) of its period: the close
 * walks from the open to the final close, high and low widen to their final values, volume and
 * trades accrue. Progress 1 is the closed candle.
 */
export function modelCandle(venue: SimVenue, coin: string, interval: Interval, open: number, progress = 1): RawCandle {
  const p = profileOf(coin);
  const next = interval.add(open, 1);
  const minutes = (next - open) / MINUTE;
  const o = priceAt(venue, p, open);
  const finalClose = priceAt(venue, p, next);
  const salt = hash2(p.seed + VENUES.indexOf(venue) + 1, minutes);
  const key = Math.floor(open / MINUTE);
  const range = RANGE_PER_SQRT_MINUTE * Math.sqrt(minutes);
  const up = Math.max(o, finalClose) * range * (0.1 + 0.9 * draw(salt, key));
  const down = Math.min(o, finalClose) * range * (0.1 + 0.9 * draw(salt ^ 0x27d4eb2f, key));
  const volume = p.volumePerMinute * minutes * (0.4 + 1.2 * draw(salt ^ 0x165667b1, key));
  const trades = Math.max(1, Math.round(TRADES_PER_MINUTE * minutes * (0.4 + 1.2 * draw(salt ^ 0x61c88647, key))));
  const close = o + (finalClose - o) * progress;
  return {
    open: o,
    high: Math.max(o, close) + up * progress,
    low: Math.min(o, close) - down * progress,
    close,
    volume: volume * progress,
    trades: Math.round(trades * progress),
    takerShare: 0.3 + 0.4 * draw(salt ^ 0x3c6ef372, key),
  };
}

/** Hyperliquid's funding settled at the top of `hour`. */
export function modelFunding(coin: string, hour: number): RawFunding {
  const p = profileOf(coin);
  const n = Math.floor(hour / HOUR);
  const premium = 0.0006 * Math.sin((TAU * hour) / (3 * DAY) + p.phases[1]) + 0.0004 * (2 * draw(p.seed ^ 0x7f4a7c15, n) - 1);
  const clamped = Math.min(FUNDING_CAP, Math.max(-FUNDING_CAP, FUNDING_INTEREST - premium));
  return { time: hour + (hash2(p.seed, n) % 100), rate: (premium + clamped) / 8, premium };
}
