/**
 * What each venue serves at a moment of the simulator's clock: the instruments, the candles
 * that exist (from the listing on, up to the open one, none in a gap, and on Hyperliquid only
 * the most recent N per interval), their values as of now (the open one partial), and which
 * funding settlements are published (Hyperliquid: the model's one per hour, or the ones a test
 * set: late, missing, twice in an hour, as its recorded history has them; USD-M and Bybit: on
 * each one's own interval, which a test may change).
 */
import { BINANCE_INTERVALS, BYBIT_INTERVALS, HYPERLIQUID_INTERVALS, ceilOpen, type Interval } from './intervals';
import { modelCandle, modelFunding, type RawCandle, type RawFunding } from './price-model';
import type { CandleFrame } from './wire-format';
import { coinOf, type IntervalPerpVenue, type SimVenue } from './venues';

export interface MarketOptions {
  instruments: Record<SimVenue, ReadonlySet<string>>;
  listedAt: number;
  hyperliquidCandleLimit: number;
  now: () => number;
}

/** Open times served in [from, to]: at most `limit`, the oldest ones, or the newest with `newest`. */
export interface CandleRange {
  from: number;
  to: number;
  limit: number;
  newest?: boolean;
}

interface Gap {
  venue: SimVenue;
  instrument: string;
  start: number;
  end: number;
}

const HOUR = 3_600_000;
/** The interval a perpetual settles at until a test changes it. */
const DEFAULT_INTERVAL_HOURS = 8;
/**
 * How late after the hour a settlement is stamped, at most (exclusive): Binance USD-M's recorded
 * fundingTime is 0 to 13 ms late, Bybit stamps the hour itself ("1679702400000").
 */
const STAMP_SPREAD_MS: Record<IntervalPerpVenue, number> = { 'binance-perp': 14, bybit: 1 };

/** A perpetual's settlement on its interval: the rate is the interval's (the model's hourly rate times the hours). */
export type IntervalFunding = RawFunding & { hours: number };

export class SimMarket {
  timeJitterMs = 0;
  fundingDelayMs = 0;
  private readonly gaps: Gap[] = [];
  /** Interval changes per venue and coin: each venue keeps its own, so changing one leaves the other. */
  private readonly perpIntervals: Record<IntervalPerpVenue, Map<string, Array<{ fromMs: number; hours: number }>>> = { 'binance-perp': new Map(), bybit: new Map() };
  /** Settlement times set for an hour, by `coin|hour`. */
  private readonly settlements = new Map<string, number[]>();

  constructor(private readonly o: MarketOptions) {}

  now(): number {
    return this.o.now();
  }

  serves(venue: SimVenue, instrument: string): boolean {
    return this.o.instruments[venue].has(instrument);
  }

  /** The instruments a venue serves, in the order given. */
  instruments(venue: SimVenue): string[] {
    return [...this.o.instruments[venue]];
  }

  interval(venue: SimVenue, name: string): Interval | undefined {
    if (venue === 'bybit') return BYBIT_INTERVALS.get(name);
    return (venue === 'hyperliquid' ? HYPERLIQUID_INTERVALS : BINANCE_INTERVALS).get(name); // USD-M has spot's intervals
  }

  addGap(venue: SimVenue, instrument: string, start: number, end: number): void {
    this.gaps.push({ venue, instrument, start, end });
  }

  served(venue: SimVenue, instrument: string, interval: Interval, open: number): boolean {
    const now = this.now();
    return (
      this.serves(venue, instrument) &&
      interval.floor(open) === open &&
      open >= this.earliestOpen(venue, interval, now) &&
      open <= interval.floor(now) &&
      !this.inGap(venue, instrument, open)
    );
  }

  openTimes(venue: SimVenue, instrument: string, interval: Interval, r: CandleRange): number[] {
    if (!this.serves(venue, instrument)) return [];
    const now = this.now();
    const first = Math.max(ceilOpen(interval, r.from), this.earliestOpen(venue, interval, now));
    const last = Math.min(interval.floor(r.to), interval.floor(now));
    const out: number[] = [];
    const step = r.newest ? -1 : 1;
    for (let t = r.newest ? last : first; t >= first && t <= last && out.length < r.limit; t = interval.add(t, step)) {
      if (!this.inGap(venue, instrument, t)) out.push(t);
    }
    return r.newest ? out.reverse() : out;
  }

  /** The candle's values as of now (partial while it is open, final once closed), or after `progress` (0..1) of it. */
  values(venue: SimVenue, instrument: string, interval: Interval, open: number, progress?: number): RawCandle {
    const next = interval.add(open, 1);
    const asOfNow = Math.min(1, Math.max(0, (this.now() - open) / (next - open)));
    return modelCandle(venue, coinOf(venue, instrument), interval, open, progress ?? asOfNow);
  }

  /** The candle's place as the venue sends it (times shifted by the jitter switch). */
  frame(instrument: string, interval: Interval, open: number): CandleFrame {
    const close = interval.add(open, 1) - 1;
    return { instrument, interval: interval.name, openTime: open + this.timeJitterMs, closeTime: close + this.timeJitterMs };
  }

  /** The venue settles `coin`'s `hour` at these times instead of the model's one (none: the hour is missing). */
  setSettlements(coin: string, hour: number, times: readonly number[]): void {
    this.settlements.set(`${coin}|${hour}`, [...times].sort((a, b) => a - b));
  }

  /** Published fundings with `time` in [from, to], ascending, at most `limit`. */
  fundings(coin: string, from: number, to: number, limit: number): RawFunding[] {
    const out: RawFunding[] = [];
    for (let hour = Math.max(Math.floor(from / HOUR) * HOUR, this.firstFundingHour()); hour <= to && out.length < limit; hour += HOUR) {
      if (this.now() < hour + this.fundingDelayMs) break;
      for (const f of this.settlementsOf(coin, hour)) if (f.time >= from && f.time <= to && out.length < limit) out.push(f);
    }
    return out;
  }

  /** The (first) funding settlement of `hour`, or null when not published (yet), missing, before the listing or not served. */
  funding(coin: string, hour: number): RawFunding | null {
    return this.settlementsOf(coin, hour)[0] ?? null;
  }

  /** The published settlements of an hour: the model's, or those set, the first with the model's rate, the others slightly off it. */
  private settlementsOf(coin: string, hour: number): RawFunding[] {
    if (!this.serves('hyperliquid', coin) || hour < this.firstFundingHour() || this.now() < hour + this.fundingDelayMs) return [];
    const model = modelFunding(coin, hour);
    const times = this.settlements.get(`${coin}|${hour}`);
    if (times === undefined) return [model];
    return times.filter((t) => t <= this.now()).map((time, k) => ({ ...model, time, rate: model.rate + k * 1e-8 }));
  }

  /** From `fromMs` on, the venue settles `coin` every `hours` hours (default 8). */
  setPerpInterval(venue: IntervalPerpVenue, coin: string, hours: number, fromMs: number): void {
    const list = this.perpIntervals[venue].get(coin) ?? [];
    list.push({ fromMs, hours });
    list.sort((a, b) => a.fromMs - b.fromMs);
    this.perpIntervals[venue].set(coin, list);
  }

  /** The venue's interval for `coin` at `t`, and whether it was ever changed (USD-M's fundingInfo lists it then). */
  perpInterval(venue: IntervalPerpVenue, coin: string, t: number): { hours: number; changed: boolean } {
    const list = this.perpIntervals[venue].get(coin) ?? [];
    let hours = DEFAULT_INTERVAL_HOURS;
    for (const c of list) if (c.fromMs <= t) hours = c.hours;
    return { hours, changed: list.length > 0 };
  }

  /** When `coin`'s next settlement on the venue is due after `t`. */
  nextSettlement(venue: IntervalPerpVenue, coin: string, t: number): number {
    const { hours } = this.perpInterval(venue, coin, t);
    return (Math.floor(t / (hours * HOUR)) + 1) * hours * HOUR;
  }

  /**
   * The venue's settlements of `coin` stamped in [from, to] (and by now), at most `limit`: the
   * oldest ascending, or with `newest` the newest, newest first. At the hours of the interval
   * (from midnight UTC), stamped as the venue stamps them (STAMP_SPREAD_MS).
   */
  perpFundings(venue: IntervalPerpVenue, coin: string, from: number, to: number, limit: number, newest = false): IntervalFunding[] {
    const out: IntervalFunding[] = [];
    const last = Math.min(to, this.now());
    const first = Math.max(Math.floor(from / HOUR) * HOUR, this.firstFundingHour());
    const step = newest ? -HOUR : HOUR;
    for (let hour = newest ? Math.floor(last / HOUR) * HOUR : first; hour >= first && hour <= last && out.length < limit; hour += step) {
      const { hours } = this.perpInterval(venue, coin, hour);
      if ((hour / HOUR) % hours !== 0) continue;
      const model = modelFunding(coin, hour);
      const time = hour + ((model.time - hour) % STAMP_SPREAD_MS[venue]);
      if (time >= from && time <= last) out.push({ time, rate: model.rate * hours, premium: model.premium, hours });
    }
    return out;
  }

  /** When the venue lists its instruments (no candle opens before). */
  listedAt(): number {
    return this.o.listedAt;
  }

  private firstFundingHour(): number {
    return Math.ceil(this.o.listedAt / HOUR) * HOUR;
  }

  /** No candle opens before the listing; Hyperliquid keeps only the most recent N per interval. */
  private earliestOpen(venue: SimVenue, interval: Interval, now: number): number {
    const listed = ceilOpen(interval, this.o.listedAt);
    if (venue !== 'hyperliquid') return listed;
    return Math.max(listed, interval.add(interval.floor(now), -(this.o.hyperliquidCandleLimit - 1)));
  }

  private inGap(venue: SimVenue, instrument: string, open: number): boolean {
    return this.gaps.some((g) => g.venue === venue && g.instrument === instrument && open >= g.start && open < g.end);
  }
}
