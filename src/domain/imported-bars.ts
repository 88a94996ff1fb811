/**
 * The bars of a candle import kept in memory while its file is read: the file's own rows as
 * doubles, and every coarser timeframe rolled up in the same pass in exact decimals, as
 * ROLLUP_SQL computes them (open first, close last, high max, low min, volume summed at the
 * largest scale of its rows). A series without candles before the import then gets its rollups
 * and features from these, instead of reading back what was just written.
 */
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, type CandleTimeframe } from './timeframe';

/** Bars as columns of doubles, oldest first (the shape of CandlesRepository.history's answer). */
export interface CandleHistory {
  time: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
const MAX_SCALE = 22;

/**
 * The double PostgreSQL's text of the decimal `m` x 10^-s reads as in the feature precompute
 * (candle-history.ts `numberIn`: the exact integer divided by the power of ten).
 */
const doubleOf = (m: number, s: number) => (s > 0 ? m / POW10[s] : m);

/** The decimal `m` x 10^-`s` as PostgreSQL renders a numeric of scale `s`. */
export function decimalText(m: number, s: number): string {
  const neg = m < 0;
  let digits = String(neg ? -m : m);
  if (s > 0) {
    if (digits.length <= s) digits = '0'.repeat(s + 1 - digits.length) + digits;
    digits = `${digits.slice(0, digits.length - s)}.${digits.slice(digits.length - s)}`;
  }
  return neg ? `-${digits}` : digits;
}

/**
 * A plain decimal's text (`-?\d+(\.\d+)?`) as mantissa and scale into `out[at]`, `out[at + 1]`;
 * false when it has another form or its digits do not fit an exact integer.
 */
export function parseDecimal(text: string, out: Float64Array, at: number): boolean {
  let i = 0;
  const neg = text.charCodeAt(0) === 45;
  if (neg) i++;
  let m = 0;
  let s = -1;
  const digitsFrom = i;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && s < 0) s = 0;
    else if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      if (s >= 0) s++;
    } else return false;
  }
  if (i === digitsFrom || s === 0 || m > Number.MAX_SAFE_INTEGER || s > MAX_SCALE) return false;
  out[at] = neg ? -m : m;
  out[at + 1] = s < 0 ? 0 : s;
  return true;
}

/** A value of `m` at scale `s` brought to scale `to` (>= s); NaN when it leaves the exact integers. */
function rescale(m: number, s: number, to: number): number {
  const v = to === s ? m : m * POW10[to - s];
  return Math.abs(v) <= Number.MAX_SAFE_INTEGER ? v : NaN;
}

/** -1, 0, 1: the exact order of two decimals; NaN when they cannot be compared exactly. */
function compare(am: number, as: number, bm: number, bs: number): number {
  const s = Math.max(as, bs);
  const a = rescale(am, as, s);
  const b = rescale(bm, bs, s);
  return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
}

/** The bars of one coarser timeframe: per bucket, five decimals as mantissa and scale. */
class Level {
  readonly time: number[] = [];
  /** open, high, low, close, volume: mantissa, scale, ten values per bar. */
  readonly values: number[] = [];
  private bucket = -1;
  private readonly acc = new Float64Array(10);

  constructor(readonly timeframe: CandleTimeframe) {}

  /** Fold one finer row (its ten values) in; false when a value cannot be kept exactly. */
  add(time: number, v: Float64Array): boolean {
    const p = TIMEFRAME_MS[this.timeframe];
    const bucket = time - (((time % p) + p) % p);
    const a = this.acc;
    if (bucket !== this.bucket) {
      if (this.bucket >= 0) this.flush();
      this.bucket = bucket;
      a.set(v);
      return true;
    }
    const hi = compare(v[2], v[3], a[2], a[3]);
    const lo = compare(v[4], v[5], a[4], a[5]);
    if (Number.isNaN(hi) || Number.isNaN(lo)) return false;
    // On a tie the later row's, as numeric_larger/numeric_smaller keep; with canonical decimals equal values have the same text.
    if (hi >= 0) {
      a[2] = v[2];
      a[3] = v[3];
    }
    if (lo <= 0) {
      a[4] = v[4];
      a[5] = v[5];
    }
    a[6] = v[6];
    a[7] = v[7];
    const s = Math.max(a[9], v[9]);
    const sum = rescale(a[8], a[9], s) + rescale(v[8], v[9], s);
    if (!(Math.abs(sum) <= Number.MAX_SAFE_INTEGER)) return false;
    a[8] = sum;
    a[9] = s;
    return true;
  }

  flush(): void {
    if (this.bucket < 0) return;
    this.time.push(this.bucket);
    for (let i = 0; i < 10; i++) this.values.push(this.acc[i]);
    this.bucket = -1;
  }

  /** Bars whose bucket closed at `nowMs`. */
  closed(nowMs: number): number {
    const p = TIMEFRAME_MS[this.timeframe];
    let n = this.time.length;
    while (n > 0 && this.time[n - 1] + p > nowMs) n--;
    return n;
  }
}

/** Bars as the feature precompute reads them (CandlesRepository.history), from memory. */
export class BarHistory {
  constructor(readonly bars: CandleHistory) {}

  /** Up to `lookback` bars before `fromMs` (null: from the first) and up to `limit` from it, as new arrays. */
  history(fromMs: number | null, lookback: number, limit: number): CandleHistory {
    const t = this.bars.time;
    let lo = 0;
    let hi = t.length;
    if (fromMs !== null) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (t[mid] < fromMs) lo = mid + 1;
        else hi = mid;
      }
    }
    const start = fromMs === null ? 0 : Math.max(0, lo - lookback);
    const end = Math.min(t.length, lo + limit);
    const b = this.bars;
    return {
      time: t.slice(start, end),
      open: b.open.slice(start, end),
      high: b.high.slice(start, end),
      low: b.low.slice(start, end),
      close: b.close.slice(start, end),
      volume: b.volume.slice(start, end),
    };
  }
}

/** One rolled-up bar's COPY fields after its time: `open,high,low,close,volume`. */
export type RollupBar = { time: number; text: string };

export class ImportedBars {
  private readonly own: CandleHistory = { time: [], open: [], high: [], low: [], close: [], volume: [] };
  private readonly levels: Level[];
  private last = -Infinity;
  /** False once a row could not be kept (out of time order, or not exact): the database path then. */
  usable = true;

  constructor(readonly timeframe: CandleTimeframe) {
    this.levels = CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(timeframe) + 1).map((tf) => new Level(tf));
  }

  /**
   * One row of the file, in file order: its time and open, high, low, close, volume as
   * mantissa and scale (ten values).
   */
  add(time: number, v: Float64Array): void {
    if (!this.usable) return;
    if (time <= this.last) return this.drop();
    this.last = time;
    const o = this.own;
    o.time.push(time);
    o.open.push(doubleOf(v[0], v[1]));
    o.high.push(doubleOf(v[2], v[3]));
    o.low.push(doubleOf(v[4], v[5]));
    o.close.push(doubleOf(v[6], v[7]));
    o.volume.push(doubleOf(v[8], v[9]));
    for (const level of this.levels) if (!level.add(time, v)) return this.drop();
  }

  /** Gives the rows up (the database path computes everything). */
  drop(): void {
    this.usable = false;
    for (const k of Object.keys(this.own) as Array<keyof CandleHistory>) this.own[k] = [];
    this.levels.length = 0;
  }

  /** The coarser timeframes whose buckets closed at `nowMs`, with their bars' COPY text and their history. */
  finish(nowMs: number): { own: BarHistory; rollups: Array<{ timeframe: CandleTimeframe; bars: RollupBar[]; history: BarHistory }> } {
    const rollups = this.levels.map((level) => {
      level.flush();
      const n = level.closed(nowMs);
      const bars: RollupBar[] = new Array(n);
      const h: CandleHistory = { time: level.time.slice(0, n), open: [], high: [], low: [], close: [], volume: [] };
      const cols = [h.open, h.high, h.low, h.close, h.volume];
      const v = level.values;
      for (let i = 0; i < n; i++) {
        const k = i * 10;
        const text: string[] = [];
        for (let c = 0; c < 5; c++) {
          text.push(decimalText(v[k + 2 * c], v[k + 2 * c + 1]));
          cols[c].push(doubleOf(v[k + 2 * c], v[k + 2 * c + 1]));
        }
        bars[i] = { time: h.time[i], text: text.join(',') };
      }
      return { timeframe: level.timeframe, bars, history: new BarHistory(h) };
    });
    return { own: new BarHistory(this.own), rollups };
  }
}
