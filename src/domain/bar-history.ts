/**
 * Candles of one series as columns of doubles, the feature precompute's input: read back from
 * the database (CandlesRepository.history) or kept by a first import (imported-bars.ts), in
 * chunked columns that grow without copying and let go of what was read.
 */

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

/** Doubles per chunk of a Column (64 KB): a series holds a history per timeframe, most of them short. */
const CHUNK_BITS = 13;
const CHUNK = 1 << CHUNK_BITS;

const RELEASED = new Float64Array(0);

/**
 * A column of doubles in fixed chunks: growing it never copies, nor frees a large buffer for
 * the allocator to keep (a doubling array left the process's RSS far above what it held).
 */
export class Column {
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

