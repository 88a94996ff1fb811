/**
 * Fetching a series' history from its venue into storage: the backfill, the reconciliation
 * after a reconnect and gap repair all come down to "fetch these slots, store what the venue
 * has, record what it does not". Pages are fetched a few at a time, in order, also while
 * a batch is written; a slot the venue answered around but did not return is a known
 * venue gap (never asked for again), unless its row was rejected (asked for again later) or it
 * is so recent the venue may not have published it yet.
 */
import type { Store } from '../../db/store';
import type { CandleInput } from '../../domain/csv-rows';
import type { DerivativesInput } from '../../domain/derivatives';
import { ALIGN_TOLERANCE_MS } from '../../domain/ingest-settings';
import { HOURLY_VENUE, type FundingIntervals } from '../../domain/exchanges';
import { CANDLE_TIMEFRAMES, FUNDING_INTERVAL_MS, TIMEFRAME_MS, bucketStart, lastClosedOpen, mergeSpans, slotRuns, type CandleTimeframe, type Span } from '../../domain/timeframe';
import type { VenueAdapter } from '../../venues/venue';
import type { LiveWriter, SeriesRef } from './live-writer';

/** One market being ingested: a symbol on one exchange, its instrument name at its venue, its series. */
export interface IngestTarget {
  exchange: string;
  symbol: string;
  instrument: string;
  adapter: VenueAdapter;
  series: SeriesRef;
  /** How the exchange settles funding (absent: hourly). */
  funding?: FundingIntervals | null;
}

export interface FillSummary {
  rows: number;
  /** Slots recorded as known venue gaps. */
  gapSlots: number;
}

/** Slots opening this recently are never declared venue gaps (the venue may publish them late). */
const SETTLE_MS = 120_000;
/** Pages fetched ahead of the one being stored. */
const PAGES_AHEAD = 4;
/** Most missing slots looked up at once. */
const MISSING_LOOKUP = 200_000;
const MINUTE = 60_000;

/** A page asked of the venue: first and last open time, both included. */
type Window = [number, number];

/** Fetch pages in order, up to `ahead` in flight; a failure surfaces when its page is reached. */
async function* prefetch<R>(windows: readonly Window[], fetch: (w: Window) => Promise<R>, ahead: number): AsyncGenerator<[Window, R]> {
  const inflight: Array<Promise<R>> = [];
  let next = 0;
  const launch = () => {
    const p = fetch(windows[next++]);
    p.catch(() => undefined); // observed now; rethrown where it is awaited
    inflight.push(p);
  };
  while (next < windows.length && inflight.length < ahead) launch();
  for (let i = 0; i < windows.length; i++) {
    const page = await inflight.shift()!;
    if (next < windows.length) launch();
    yield [windows[i], page];
  }
}

/** [from, to] cut into windows of at most `size` slots of `p` ms. */
function windowsOf(fromMs: number, toMs: number, p: number, size: number): Window[] {
  const out: Window[] = [];
  for (let s = fromMs; s <= toMs; s += size * p) out.push([s, Math.min(toMs, s + (size - 1) * p)]);
  return out;
}

export class SeriesFiller {
  constructor(
    private readonly store: Pick<Store, 'ingest' | 'candles' | 'funding' | 'derivatives'>,
    private readonly writer: LiveWriter,
    private readonly clock: () => number,
    /** Rows stored per transaction during a long fetch. */
    private readonly batchRows = 50_000,
  ) {}

  /** Fetch every slot of [fromMs, toMs] (stored or not) and store what the venue has. */
  async fetchRange(t: IngestTarget, tf: CandleTimeframe, fromMs: number, toMs: number): Promise<FillSummary> {
    return this.fetchWindows(t, tf, windowsOf(fromMs, toMs, TIMEFRAME_MS[tf], t.adapter.pageCandles));
  }

  /** Fetch the slots of [fromMs, toMs] that are neither stored nor known venue gaps. */
  async fillMissing(t: IngestTarget, tf: CandleTimeframe, fromMs: number, toMs: number): Promise<FillSummary> {
    const total: FillSummary = { rows: 0, gapSlots: 0 };
    const p = TIMEFRAME_MS[tf];
    let from = fromMs;
    while (from <= toMs) {
      const runs = await this.store.ingest.missing(t.series.id, tf, from, toMs, MISSING_LOOKUP);
      if (runs.length === 0) break;
      const windows = runs.flatMap(([s, e]) => windowsOf(s, e - p, p, t.adapter.pageCandles));
      const got = await this.fetchWindows(t, tf, windows);
      total.rows += got.rows;
      total.gapSlots += got.gapSlots;
      from = runs[runs.length - 1][1];
    }
    return total;
  }

  /**
   * Backfill one series from `sinceMs` to its last closed candle. A venue that serves only its
   * most recent candles: slots older than that are recorded as venue gaps at once, and the
   * coarser timeframes are fetched from the venue for the buckets before the earliest stored
   * 1m candle (stored as imported: rollups never overwrite them).
   */
  async backfill(t: IngestTarget, sinceMs: number): Promise<FillSummary> {
    const now = this.clock();
    const total: FillSummary = { rows: 0, gapSlots: 0 };
    const add = (s: FillSummary) => {
      total.rows += s.rows;
      total.gapSlots += s.gapSlots;
    };
    add(await this.fillWithinHorizon(t, '1m', bucketStart(sinceMs, '1m'), lastClosedOpen(now, '1m'), now));
    if (t.adapter.horizonCandles !== null) {
      const earliest = (await this.store.candles.openSpan(t.series.id, '1m', new Date(now))).first;
      for (const tf of CANDLE_TIMEFRAMES.slice(1)) {
        const upTo = earliest === null ? lastClosedOpen(now, tf) : Math.min(bucketStart(earliest, tf), lastClosedOpen(now, tf));
        add(await this.fillWithinHorizon(t, tf, bucketStart(sinceMs, tf), upTo, now));
      }
    }
    return total;
  }

  /**
   * Funding rates after the newest stored one (from `sinceMs` on an empty series), then the
   * hours missing before it repaired; rows stored.
   */
  async funding(t: IngestTarget, sinceMs: number): Promise<number> {
    if (!t.adapter.funding) return 0;
    const latest = await this.store.funding.latestTime(t.series.id);
    const rows = await t.adapter.funding(t.instrument, latest === null ? sinceMs : latest + 1);
    const fresh = latest === null ? rows : rows.filter((r) => r.time > latest);
    const f = t.funding ?? HOURLY_VENUE;
    // The venue's current interval is a first row's (asked only then: later rows follow the stored ones).
    const firstHours = latest === null && fresh.length > 0 ? ((await t.adapter.fundingInterval?.(t.instrument)) ?? f.defaultHours) : f.defaultHours;
    await this.writer.funding(t.series, fresh, { maxHours: f.maxHours, firstHours });
    return fresh.length + (await this.repairFunding(t));
  }

  /**
   * Settlements missing inside the stored range, at the series' interval (a settlement stamped
   * late that an older rule dropped, a page cut short): asked of the venue once, in one range; those it still lacks become known
   * venue gaps, never asked again. Returns the rows stored.
   */
  private async repairFunding(t: IngestTarget): Promise<number> {
    const slots = await this.store.ingest.missingFunding(t.series.id, MISSING_LOOKUP);
    if (slots.length === 0 || !t.adapter.funding) return 0;
    const missing = new Map(slots.map((s) => [s[0], s]));
    // Hour h holds settlements stamped in [h - 5 s, h + 1 h - 5 s).
    const rows = await t.adapter.funding(t.instrument, slots[0][0] - ALIGN_TOLERANCE_MS, slots[slots.length - 1][0] + FUNDING_INTERVAL_MS - ALIGN_TOLERANCE_MS - 1);
    const found = rows.filter((r) => missing.has(r.time));
    const f = t.funding ?? HOURLY_VENUE;
    await this.writer.funding(t.series, found, { maxHours: f.maxHours, firstHours: f.defaultHours });
    for (const r of found) missing.delete(r.time);
    await this.store.ingest.recordGaps(t.series.id, 'funding', mergeSpans([...missing.values()].sort((a, b) => a[0] - b[0])));
    return found.length;
  }

  /**
   * The context the venue keeps of the minutes in [fromMs, toMs] that have no row (a recorded
   * minute is never replaced), then its 5-minute open interest for the buckets that know none;
   * the minutes stored. Nothing on a venue that keeps no context.
   */
  async pastContext(t: IngestTarget, fromMs: number, toMs: number): Promise<number> {
    const { pastContext, openInterestHistory } = t.adapter;
    if (!pastContext) return 0;
    const runs = toMs < fromMs ? [] : await this.store.derivatives.missingMinutes(t.series.id, fromMs, toMs);
    const windows = runs.flatMap(([s, e]) => windowsOf(s, e - MINUTE, MINUTE, t.adapter.pageCandles));
    let rows = 0;
    let batch: DerivativesInput[] = [];
    const flush = async () => {
      await this.writer.pastContext(t.series, batch);
      rows += batch.length;
      batch = [];
    };
    for await (const [, page] of prefetch(windows, ([s, e]) => pastContext.call(t.adapter, t.instrument, s, e), PAGES_AHEAD)) {
      for (const r of page) batch.push(r);
      if (batch.length >= this.batchRows) await flush();
    }
    if (batch.length) await flush();
    // The 5m rows exist now: those that know no open interest take the venue's history.
    const unknown = openInterestHistory ? await this.store.derivatives.unknownOpenInterest(t.series.id, bucketStart(fromMs, '5m'), toMs) : null;
    if (unknown && openInterestHistory) await this.writer.pastContext(t.series, [], await openInterestHistory.call(t.adapter, t.instrument, unknown[0], unknown[1]));
    return rows;
  }

  /** fillMissing over [fromMs, toMs], recording at once the part older than the venue serves. */
  private async fillWithinHorizon(t: IngestTarget, tf: CandleTimeframe, fromMs: number, toMs: number, now: number): Promise<FillSummary> {
    if (toMs < fromMs) return { rows: 0, gapSlots: 0 };
    const p = TIMEFRAME_MS[tf];
    let from = fromMs;
    let gapSlots = 0;
    const horizon = t.adapter.horizonCandles;
    if (horizon !== null) {
      const served = lastClosedOpen(now, tf) - (horizon - 1) * p;
      if (from < served) {
        const end = Math.min(served, toMs + p);
        const known = await this.store.ingest.gaps(t.series.id, tf, from, end);
        const fresh = subtract([from, end], known);
        await this.store.ingest.recordGaps(t.series.id, tf, fresh);
        gapSlots = fresh.reduce((n, [s, e]) => n + (e - s) / p, 0);
        from = served;
      }
    }
    const got = await this.fillMissing(t, tf, from, toMs);
    return { rows: got.rows, gapSlots: got.gapSlots + gapSlots };
  }

  private async fetchWindows(t: IngestTarget, tf: CandleTimeframe, windows: readonly Window[]): Promise<FillSummary> {
    const p = TIMEFRAME_MS[tf];
    const total: FillSummary = { rows: 0, gapSlots: 0 };
    let batch: CandleInput[] = [];
    // Written in turn with the fetch (up to PAGES_AHEAD pages stay in flight meanwhile). Writing
    // a batch while the next was parsed and validated was tried: no faster (both are
    // JavaScript on one event loop; bench/README.md) and two batches in memory.
    const flush = async () => {
      await this.writer.candles(t.series, tf, batch);
      total.rows += batch.length;
      batch = [];
    };
    for await (const [[from, to], page] of prefetch(windows, ([s, e]) => t.adapter.candles(t.instrument, tf, s, e), PAGES_AHEAD)) {
      for (const r of page.rows) batch.push(r);
      if (page.rejectedTimes !== null) {
        const have = new Set(page.rows.map((r) => r.time));
        for (const r of page.rejectedTimes) have.add(bucketStart(r, tf));
        const settled = Math.min(to, this.clock() - SETTLE_MS);
        const absent: number[] = [];
        for (let s = from; s <= settled; s += p) if (!have.has(s)) absent.push(s);
        await this.store.ingest.recordGaps(t.series.id, tf, slotRuns(absent, p));
        total.gapSlots += absent.length;
      }
      if (batch.length >= this.batchRows) await flush();
    }
    if (batch.length) await flush();
    return total;
  }
}

/** The parts of `span` not covered by `cuts` (sorted, possibly overlapping). */
function subtract(span: Span, cuts: readonly Span[]): Span[] {
  const out: Span[] = [];
  let at = span[0];
  for (const [s, e] of cuts) {
    if (s > at) out.push([at, Math.min(s, span[1])]);
    at = Math.max(at, e);
    if (at >= span[1]) break;
  }
  if (at < span[1]) out.push([at, span[1]]);
  return out.filter(([s, e]) => e > s);
}
