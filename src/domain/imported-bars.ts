/**
 * The bars of a candle import kept in memory while its file is read: the file's own rows as
 * doubles, and every coarser timeframe rolled up in the same pass in exact decimals, as
 * ROLLUP_SQL computes them (open first, close last, high max, low min, volume summed at the
 * largest scale of its rows). A series without candles before the import then gets its rollups
 * and features from these, instead of reading back what was just written.
 */
import type { BinaryRows } from './binary-rows';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, type CandleTimeframe } from './timeframe';

/**
 * Candles of one series as columns of doubles, oldest first: the feature precompute's input,
 * from CandlesRepository.history or from the kept bars. Typed arrays, not arrays of numbers:
 * a chunk's columns are larger than V8's large-object size, and as plain arrays (grown by
 * push) each chunk left megabytes in the large-object space until a full collection.
 */
export interface CandleHistory {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** The first `n` bars of `h`, as views. */
export function firstBars(h: CandleHistory, n: number): CandleHistory {
  return { time: h.time.subarray(0, n), open: h.open.subarray(0, n), high: h.high.subarray(0, n), low: h.low.subarray(0, n), close: h.close.subarray(0, n), volume: h.volume.subarray(0, n) };
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
const MAX_SCALE = 22;

/**
 * The double PostgreSQL's text of the decimal `m` x 10^-s reads as in the feature precompute
 * (candle-history.ts `numberIn`: the exact integer divided by the power of ten).
 */
const doubleOf = (m: number, s: number) => (s > 0 ? m / POW10[s] : m);

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

/**
 * -1, 0, 1: the exact order of two decimals (NaN: they cannot be compared exactly). Their
 * doubles are correctly rounded, and rounding keeps order: only equal doubles need the exact
 * comparison.
 */
function compare(am: number, as: number, bm: number, bs: number): number {
  const da = doubleOf(am, as);
  const db = doubleOf(bm, bs);
  if (da !== db) return da < db ? -1 : 1;
  const s = Math.max(as, bs);
  const a = rescale(am, as, s);
  const b = rescale(bm, bs, s);
  return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
}

/** Doubles per chunk of a Column (512 KB). */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;

const RELEASED = new Float64Array(0);

/**
 * A column of doubles in fixed chunks: growing it never copies, nor frees a large buffer for
 * the allocator to keep (a doubling array left the process's RSS far above what it held).
 */
class Column {
  private readonly chunks: Float64Array[] = [];
  length = 0;
  /** The first index still held (releaseBefore). */
  held = 0;

  push(v: number): void {
    const i = this.length & (CHUNK - 1);
    if (i === 0) this.chunks.push(new Float64Array(CHUNK));
    this.chunks[this.chunks.length - 1][i] = v;
    this.length++;
  }

  at(i: number): number {
    return this.chunks[i >>> CHUNK_BITS][i & (CHUNK - 1)];
  }

  /** Lets the chunks wholly before index `i` go (nothing before it is read again). */
  releaseBefore(i: number): void {
    const k = i >>> CHUNK_BITS;
    for (let j = this.held >>> CHUNK_BITS; j < k; j++) this.chunks[j] = RELEASED;
    this.held = Math.max(this.held, k << CHUNK_BITS);
  }

  /** Values [start, end) into `out` (from its start). */
  copy(start: number, end: number, out: Float64Array): void {
    for (let i = start; i < end; i++) out[i - start] = this.chunks[i >>> CHUNK_BITS][i & (CHUNK - 1)];
  }
}

/**
 * Bars of doubles, oldest first, as the feature precompute reads them (CandlesRepository.history).
 * Its reads move forward (each from no earlier than the one before): the bars before a read's
 * first are let go, so the memory they held drains as the features are computed. A read's
 * columns are this history's own arrays, valid until its next read (the precompute computes a
 * chunk from them before it reads the next).
 */
export class BarHistory {
  private read: CandleHistory = { time: new Float64Array(0), open: new Float64Array(0), high: new Float64Array(0), low: new Float64Array(0), close: new Float64Array(0), volume: new Float64Array(0) };

  constructor(
    private readonly cols: { time: Column; open: Column; high: Column; low: Column; close: Column; volume: Column },
    /** Bars held (a rollup's closed ones). */
    readonly length: number,
  ) {}

  /** Up to `lookback` bars before `fromMs` (null: from the first) and up to `limit` from it. */
  history(fromMs: number | null, lookback: number, limit: number): CandleHistory {
    const t = this.cols.time;
    let lo = t.held;
    let hi = this.length;
    if (fromMs !== null) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (t.at(mid) < fromMs) lo = mid + 1;
        else hi = mid;
      }
    }
    const start = fromMs === null ? 0 : Math.max(0, lo - lookback);
    if (start < t.held) throw new Error('BarHistory: a read before the bars it let go');
    const end = Math.min(this.length, lo + limit);
    const c = this.cols;
    for (const col of [c.time, c.open, c.high, c.low, c.close, c.volume]) col.releaseBefore(start);
    const n = Math.max(0, end - start);
    if (this.read.time.length < n) {
      const a = () => new Float64Array(n);
      this.read = { time: a(), open: a(), high: a(), low: a(), close: a(), volume: a() };
    }
    const out = firstBars(this.read, n);
    for (const k of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) c[k].copy(start, end, out[k]);
    return out;
  }
}

/**
 * The bars of one coarser timeframe, folded from the next finer one's (as ROLLUP_SQL rolls each
 * timeframe up from the next finer): per bucket its time and five decimals as mantissa and scale.
 */
class Level {
  readonly time = new Column();
  /** open, high, low, close, volume: mantissa, scale, ten values per bar. */
  readonly values = new Column();
  private bucket = -1;
  private readonly acc = new Float64Array(10);

  constructor(
    readonly timeframe: CandleTimeframe,
    /** The next coarser level, which this one's closed buckets fold into. */
    private readonly next: Level | null,
  ) {}

  /** Fold one finer bar (its ten values) in; false when a value cannot be kept exactly. */
  add(time: number, v: Float64Array): boolean {
    const p = TIMEFRAME_MS[this.timeframe];
    const bucket = time - (time % p);
    const a = this.acc;
    if (bucket !== this.bucket) {
      if (this.bucket >= 0 && !this.flush()) return false;
      this.bucket = bucket;
      a.set(v);
      return true;
    }
    const hi = compare(v[2], v[3], a[2], a[3]);
    const lo = compare(v[4], v[5], a[4], a[5]);
    if (Number.isNaN(hi) || Number.isNaN(lo)) return false;
    // On a tie the later row's, as numeric_larger/numeric_smaller keep (canonical decimals: equal values have one text).
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

  /** The bucket being filled is complete: kept, and folded into the next level. */
  flush(): boolean {
    if (this.bucket < 0) return true;
    this.time.push(this.bucket);
    for (let i = 0; i < 10; i++) this.values.push(this.acc[i]);
    const bucket = this.bucket;
    this.bucket = -1;
    return this.next === null || this.next.add(bucket, this.acc);
  }

  /** Bars whose bucket closed at `nowMs`. */
  closed(nowMs: number): number {
    const p = TIMEFRAME_MS[this.timeframe];
    let n = this.time.length;
    while (n > 0 && this.time.at(n - 1) + p > nowMs) n--;
    return n;
  }
}

/** The rolled-up bars of one timeframe that an import writes (CandlesRepository.insertRollups). */
export class RollupBars {
  constructor(
    readonly timeframe: CandleTimeframe,
    private readonly times: Column,
    /** Ten values per bar (open, high, low, close, volume as mantissa and scale). */
    private readonly values: Column,
    /** Bars whose bucket closed. */
    readonly length: number,
  ) {}

  time(i: number): number {
    return this.times.at(i);
  }

  /** Bar `i`'s `open,high,low,close,volume` fields as ROLLUP_SQL stores them (each at its scale). */
  write(i: number, out: BinaryRows): void {
    const v = this.values;
    for (let k = i * 10; k < i * 10 + 10; k += 2) out.scaled(v.at(k), v.at(k + 1));
  }

  /** Its bars, in order, as rows of `into`: the coarser timeframes rolled from these, as ROLLUP_SQL rolls each from the next finer. */
  addTo(into: ImportedBars): void {
    const v = new Float64Array(10);
    for (let i = 0; i < this.length; i++) {
      for (let k = 0; k < 10; k++) v[k] = this.values.at(i * 10 + k);
      into.add(this.times.at(i), v);
    }
  }

  /** The bars as doubles, for their features. */
  history(): BarHistory {
    const cols = [0, 1, 2, 3, 4].map(() => new Column());
    const v = this.values;
    for (let i = 0; i < this.length; i++) for (let c = 0; c < 5; c++) cols[c].push(doubleOf(v.at(i * 10 + 2 * c), v.at(i * 10 + 2 * c + 1)));
    return new BarHistory({ time: this.times, open: cols[0], high: cols[1], low: cols[2], close: cols[3], volume: cols[4] }, this.length);
  }
}

export class ImportedBars {
  private own = [0, 1, 2, 3, 4, 5].map(() => new Column());
  private levels: Level[];
  private last = -Infinity;
  private readonly scratch = new Float64Array(10);
  /** False once a row could not be kept (out of time order, or not exact): the database path then. */
  usable = true;

  constructor(readonly timeframe: CandleTimeframe) {
    const coarser = CANDLE_TIMEFRAMES.slice(CANDLE_TIMEFRAMES.indexOf(timeframe) + 1);
    this.levels = [];
    let next: Level | null = null;
    for (const tf of [...coarser].reverse()) this.levels.unshift((next = new Level(tf, next)));
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
    o[0].push(time);
    for (let c = 0; c < 5; c++) o[c + 1].push(doubleOf(v[2 * c], v[2 * c + 1]));
    if (this.levels.length > 0 && !this.levels[0].add(time, v)) this.drop();
  }

  /** One row of plain decimal texts (a CandleInput's); gives the rows up when a value has another form. */
  addRow(row: { time: number; open: string; high: string; low: string; close: string; volume: string }): void {
    const fields = [row.open, row.high, row.low, row.close, row.volume];
    for (let f = 0; f < 5; f++) if (!parseDecimal(fields[f], this.scratch, 2 * f)) return this.drop();
    this.add(row.time, this.scratch);
  }

  /** Gives the rows up (the database path computes everything). */
  drop(): void {
    this.usable = false;
    this.own = [];
    this.levels = [];
  }

  /**
   * The file's own bars and, per coarser timeframe, its bars whose buckets closed at `nowMs`;
   * null when the rows could not all be kept.
   */
  finish(nowMs: number): { own: BarHistory; rollups: RollupBars[] } | null {
    // Finest first: each flush completes a bar of the next level.
    for (const level of this.levels) if (!level.flush()) this.drop();
    if (!this.usable) return null;
    const rollups = this.levels.map((level) => new RollupBars(level.timeframe, level.time, level.values, level.closed(nowMs)));
    const [time, open, high, low, close, volume] = this.own;
    // What it held is the caller's now (let go with it).
    this.drop();
    return { own: new BarHistory({ time, open, high, low, close, volume }, time.length), rollups };
  }
}
