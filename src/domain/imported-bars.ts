/**
 * The bars of a candle import kept in memory while its file is read: the file's own rows as
 * doubles, and every coarser timeframe rolled up in the same pass in exact decimals, as
 * ROLLUP_SQL computes them (open first, close last, high max, low min, volume summed at the
 * largest scale of its rows). A series without candles before the import then gets its rollups
 * and features from these, instead of reading back what was just written.
 */
import { BarHistory, Column } from './bar-history';
import { compareScaled, doubleOf, rescale, scaledDecimal } from './scaled-decimal';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, type CandleTimeframe } from './timeframe';

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
    const hi = compareScaled(v[2], v[3], a[2], a[3]);
    const lo = compareScaled(v[4], v[5], a[4], a[5]);
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

  /** Bar `i`'s value `k` (0 open, 1 high, 2 low, 3 close, 4 volume) as mantissa and scale, as ROLLUP_SQL stores it. */
  mantissa(i: number, k: number): number {
    return this.values.at(i * 10 + 2 * k);
  }

  scale(i: number, k: number): number {
    return this.values.at(i * 10 + 2 * k + 1);
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
    for (let f = 0; f < 5; f++) if (!scaledDecimal(fields[f], this.scratch, 2 * f)) return this.drop();
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
