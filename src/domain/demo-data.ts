/**
 * Deterministic synthetic market data for the demo data set. Pure: a day's candles depend
 * only on the symbol, the day and the resolution it is generated at, never on the clock.
 * Model: daily log-price anchors follow a seeded random walk from a fixed origin; candles
 * within a day are a Brownian bridge between two anchors (so days always join up). Each perpetual
 * (DEMO_PERP_MODELS) trades a few basis points over spot with noise of its own; the hourly
 * funding rate is a few hundredths of a basis point, and h-hourly settlements pay h hours of it.
 */
import type { FundingRateInput } from './csv-rows';
import type { PerpContext } from './derivatives';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time';

export interface DemoSymbol {
  symbol: string;
  price: number; // typical price at the origin
  decimals: number; // price tick
  volume: number; // typical base volume per minute
  dailyVol: number; // daily log-return standard deviation
}

export const DEMO_SYMBOLS: readonly DemoSymbol[] = [
  { symbol: 'BTC-USDT', price: 65_000, decimals: 2, volume: 4, dailyVol: 0.028 },
  { symbol: 'ETH-USDT', price: 3_200, decimals: 2, volume: 45, dailyVol: 0.035 },
  { symbol: 'SOL-USDT', price: 150, decimals: 3, volume: 900, dailyVol: 0.05 },
  { symbol: 'BNB-USDT', price: 580, decimals: 2, volume: 120, dailyVol: 0.03 },
  { symbol: 'XRP-USDT', price: 0.6, decimals: 5, volume: 150_000, dailyVol: 0.045 },
];

/** Day index 0 of every walk (2024-01-01T00:00:00Z). */
const ORIGIN_DAY = Date.UTC(2024, 0, 1) / DAY_MS;

export interface DemoCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough for synthetic prices. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(r: () => number): number {
  const u = 1 - r();
  const v = r();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Log-price anchors at the start of each day, cached per symbol as the walk is sequential. */
const anchorCache = new Map<string, number[]>();

function anchor(sym: DemoSymbol, day: number): number {
  let walk = anchorCache.get(sym.symbol);
  if (!walk) {
    walk = [Math.log(sym.price)];
    anchorCache.set(sym.symbol, walk);
  }
  const i = Math.max(0, day - ORIGIN_DAY);
  while (walk.length <= i) {
    const k = walk.length;
    const r = rng(hash(`${sym.symbol}|anchor|${k}`));
    // Mean-reverting in the log so prices stay realistic for years.
    const drift = -0.002 * (walk[k - 1] - Math.log(sym.price));
    walk.push(walk[k - 1] + drift + sym.dailyVol * normal(r));
  }
  return walk[i];
}

/** Perp/spot basis: ~3 bp, slowly oscillating over days, with per-candle noise. */
function basisAt(ms: number, noise: number): number {
  return 0.0003 + 0.00015 * Math.sin((2 * Math.PI * ms) / (3 * DAY_MS)) + 0.00004 * noise;
}

function roundTo(decimals: number): (p: number) => number {
  const f = 10 ** decimals;
  return (p) => Math.round(p * f) / f;
}

/**
 * The spot candles of one UTC day (`dayStartMs` at 00:00) at `stepMs` resolution (1m or 1h):
 * a Brownian bridge between that day's and the next day's anchors, so days join up whatever
 * resolution each was generated at.
 */
export function demoSpotDay(sym: DemoSymbol, dayStartMs: number, stepMs: number = MINUTE_MS): DemoCandle[] {
  const day = Math.floor(dayStartMs / DAY_MS);
  const start = anchor(sym, day);
  const end = anchor(sym, day + 1);
  const r = rng(hash(`${sym.symbol}|day|${day}|${stepMs}`));
  const n = DAY_MS / stepMs;
  const sigma = sym.dailyVol / Math.sqrt(n);
  const walk = new Float64Array(n + 1);
  for (let i = 1; i <= n; i++) walk[i] = walk[i - 1] + sigma * normal(r);
  const slope = (walk[n] - (end - start)) / n;
  const round = roundTo(sym.decimals);
  const volume = sym.volume * (stepMs / MINUTE_MS);
  const out: DemoCandle[] = new Array(n);
  let open = round(Math.exp(start));
  for (let i = 0; i < n; i++) {
    const close = round(Math.exp(start + walk[i + 1] - (i + 1) * slope));
    const high = round(Math.max(open, close) * (1 + r() * sigma * 0.8));
    const low = round(Math.min(open, close) * (1 - r() * sigma * 0.8));
    out[i] = { time: dayStartMs + i * stepMs, open, high, low, close, volume: Math.round(volume * Math.exp(0.6 * normal(r)) * 1e4) / 1e4 };
    open = close;
  }
  return out;
}

/** A demo perpetual's model: the salts of its own draws, its open interest and its settlements. */
export interface DemoPerpModel {
  /** Its candles' basis noise; `<salt>-funding` its settlements' noise. */
  salt: string;
  /** Its context's draws. */
  contextSalt: string;
  /** Its open interest, as a share of the model's. */
  openInterestShare: number;
  /** Hours between settlements, and the symbols that settle at another interval. */
  settlementHours: number;
  settlementHoursOf?: Readonly<Record<string, number>>;
  /** Standard deviation of its noise over 8 hours of the hourly rate (0: it pays the hourly rate itself). */
  fundingNoise: number;
}

/** The demo's symbol that settles every 4 hours on Bybit (its others every 8). */
export const DEMO_BYBIT_4H_SYMBOL = 'ETH-USDT';

/** The demo's perpetual exchanges, by catalogue key (domain/exchanges.ts), each with its model. */
export const DEMO_PERP_MODELS = {
  perp: { salt: 'basis', contextSalt: 'perp', openInterestShare: 0.4, settlementHours: 1, fundingNoise: 0 },
  'binance-perp': { salt: 'usdm', contextSalt: 'usdm', openInterestShare: 1, settlementHours: 8, fundingNoise: 0.00002 },
  'bybit-perp': { salt: 'bybit', contextSalt: 'bybit', openInterestShare: 0.7, settlementHours: 8, settlementHoursOf: { [DEMO_BYBIT_4H_SYMBOL]: 4 }, fundingNoise: 0.00002 },
} as const satisfies Record<string, DemoPerpModel>;

/** A demo perpetual exchange's catalogue key. */
export type DemoPerpetual = keyof typeof DEMO_PERP_MODELS;

/** A perpetual's candles for one day of spot candles: spot times one plus the basis, with `venue`'s own noise. */
export function demoPerpOf(sym: DemoSymbol, spot: DemoCandle[], venue: DemoPerpetual = 'perp'): DemoCandle[] {
  if (spot.length === 0) return [];
  const r = rng(hash(`${sym.symbol}|${DEMO_PERP_MODELS[venue].salt}|${spot[0].time}`));
  const round = roundTo(sym.decimals);
  return spot.map((c) => {
    const k = 1 + basisAt(c.time, normal(r));
    const open = round(c.open * k);
    const close = round(c.close * k);
    return {
      time: c.time,
      open,
      close,
      high: Math.max(round(c.high * k), open, close),
      low: Math.min(round(c.low * k), open, close),
      volume: Math.round(c.volume * 1.8 * 1e4) / 1e4,
    };
  });
}

/** Aggregate consecutive finer candles into buckets of `periodMs` (OHLCV rules). */
export function aggregate(candles: DemoCandle[], periodMs: number): DemoCandle[] {
  const out: DemoCandle[] = [];
  for (const c of candles) {
    const t = Math.floor(c.time / periodMs) * periodMs;
    const last = out[out.length - 1];
    if (last && last.time === t) {
      last.high = Math.max(last.high, c.high);
      last.low = Math.min(last.low, c.low);
      last.close = c.close;
      last.volume += c.volume;
    } else {
      out.push({ ...c, time: t });
    }
  }
  return out;
}

/** Hours between the settlements of `sym` on `venue`. */
export function demoSettlementHours(sym: DemoSymbol, venue: DemoPerpetual): number {
  const m: DemoPerpModel = DEMO_PERP_MODELS[venue];
  return m.settlementHoursOf?.[sym.symbol] ?? m.settlementHours;
}

/** The settlement of `sym` on `venue` at `ms`: its interval's hours of the hourly model, plus its own noise. */
export function demoSettlementRate(sym: DemoSymbol, venue: DemoPerpetual, ms: number): number {
  const m = DEMO_PERP_MODELS[venue];
  const hours = demoSettlementHours(sym, venue);
  if (m.fundingNoise === 0) return Number((hours * demoFundingRate(sym, ms)).toFixed(8));
  const r = rng(hash(`${sym.symbol}|${m.salt}-funding|${ms}`));
  return Number((hours * demoFundingRate(sym, ms) + ((m.fundingNoise * hours) / 8) * normal(r)).toFixed(8));
}

/** The settlements of `sym` on `venue` after `afterMs`, up to `toMs`, as stored (8 places). */
export function demoSettlements(sym: DemoSymbol, venue: DemoPerpetual, afterMs: number, toMs: number): FundingRateInput[] {
  const period = demoSettlementHours(sym, venue) * HOUR_MS;
  const rows: FundingRateInput[] = [];
  for (let t = Math.floor(afterMs / period) * period + period; t <= toMs; t += period) rows.push({ time: t, rate: demoSettlementRate(sym, venue, t).toFixed(8) });
  return rows;
}

/** Open interest around which a symbol's demo context moves, in base units. */
const OPEN_INTEREST_NOTIONAL = 2e9;

/**
 * A perpetual's context for the minute opening at `ms`, from that minute's perpetual and spot
 * closes: open interest drifting over days, mark the close, oracle (index) the spot close, mid
 * a hair off the mark, the predicted rate of the coming settlement, the venue's premium.
 */
export function demoContext(sym: DemoSymbol, venue: DemoPerpetual, ms: number, perpClose: number, spotClose: number): PerpContext {
  const m = DEMO_PERP_MODELS[venue];
  const r = rng(hash(`${sym.symbol}|${m.contextSalt}|context|${ms}`));
  const oi = (OPEN_INTEREST_NOTIONAL / sym.price) * m.openInterestShare * (1 + 0.08 * Math.sin((2 * Math.PI * ms) / (2.3 * DAY_MS)) + 0.002 * normal(r));
  const round = roundTo(sym.decimals + 1);
  const period = demoSettlementHours(sym, venue) * HOUR_MS;
  const next = Math.floor(ms / period) * period + period;
  return {
    openInterest: oi.toFixed(3),
    markPrice: perpClose.toFixed(sym.decimals),
    oraclePrice: spotClose.toFixed(sym.decimals),
    midPrice: round(perpClose * (1 + 0.00002 * normal(r))).toFixed(sym.decimals + 1),
    fundingRate: demoSettlementRate(sym, venue, next).toFixed(8),
    premium: ((perpClose - spotClose) / spotClose).toFixed(8),
  };
}

/** Hourly funding rate at hour `ms`: around 0.001% per hour, tracking the basis. */
export function demoFundingRate(sym: DemoSymbol, ms: number): number {
  const r = rng(hash(`${sym.symbol}|funding|${ms}`));
  const rate = 0.00001 + 0.00002 * Math.sin((2 * Math.PI * ms) / (5 * DAY_MS)) + 0.000006 * normal(r);
  return Number(rate.toFixed(8));
}

