/**
 * The demo data set's candles as stored (domain/demo-data.ts over the seed's window) and, for a
 * series that has none yet, every row its seed writes, encoded: the candles, their rollups
 * (from the bars in memory, as a first import rolls up) and every timeframe's technical
 * features. Pure, no database: the seed child's worker thread (demo-seed.worker.ts) encodes
 * one symbol's rows while the database writes the previous one's.
 */
import type { CopyChunks } from '../../db/bulk-upsert';
import { candleRowFrame, rollupCopyChunks, writeInputRows } from '../../db/candle-rows';
import { BinaryRows } from '../../encoding/binary-rows';
import type { CandleInput } from '../../domain/csv-rows';
import { DEMO_SYMBOLS, aggregate, demoPerpOf, demoSpotDay, type DemoCandle, type DemoPerpetual, type DemoSymbol } from '../../domain/demo-data';
import type { BarHistory } from '../../domain/bar-history';
import { ImportedBars, type RollupBars } from '../../domain/imported-bars';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../domain/time';
import { CANDLE_TIMEFRAMES, bucketStart, lastClosedOpen, type CandleTimeframe } from '../../domain/timeframe';
import { encodedTechnical } from '../derived/feature-precompute.service';

export const DEMO_MINUTE_DAYS = 7;
export const DEMO_HOUR_DAYS = 400;
export const DEMO_FUNDING_DAYS = 60;
/** The series that carries the deliberate gaps. */
export const DEMO_GAPPY = { symbol: 'SOL-USDT', venue: 'spot' as const };

/** The catalogue keys of the demo's exchanges. */
export type DemoVenue = 'spot' | DemoPerpetual;
/** Seeded before the server reports healthy (the spec's two exchanges)... */
export const DEMO_VENUES: readonly DemoVenue[] = ['spot', 'perp'];
/** ...and these after (DemoSeedService.seedLater). */
export const DEMO_LATER_VENUES: readonly DemoVenue[] = ['binance-perp', 'bybit-perp'];
/** Every demo exchange, the feed's. */
export const ALL_DEMO_VENUES: readonly DemoVenue[] = [...DEMO_VENUES, ...DEMO_LATER_VENUES];
/**
 * Days of minutes, and of hourly candles before them, on the later exchanges: they are written
 * by the serving process (embedded: into its own PGlite, whose memory does not shrink), so fewer.
 */
export const DEMO_LATER_DAYS = { minutes: 7, hours: 60 };
/** Minutes of perpetual context the demo holds (and rolls up). */
export const DEMO_CONTEXT_DAYS = 2;

/** The time ranges of a seed at `nowMs`. */
export interface DemoWindow {
  nowMs: number;
  /** Open time of the last closed minute: the data's end. */
  lastMinute: number;
  /** Minutes from here on (whole hours); hourly candles before, from `hourStart`. */
  cut: number;
  hourStart: number;
}

export function demoWindow(nowMs: number, hourDays = DEMO_HOUR_DAYS, minuteDays = DEMO_MINUTE_DAYS): DemoWindow {
  const cut = bucketStart(nowMs, '1h') - minuteDays * DAY_MS;
  return { nowMs, lastMinute: lastClosedOpen(nowMs, '1m'), cut, hourStart: cut - hourDays * DAY_MS };
}

/** Minute ranges [start, end) cut out of the gappy series, relative to the last minute. */
function minuteGaps(lastMinute: number): Array<[number, number]> {
  return [
    [lastMinute - 2 * DAY_MS + 100 * MINUTE_MS, 7],
    [lastMinute - 4 * DAY_MS + 300 * MINUTE_MS, 15],
    [lastMinute - 5 * DAY_MS + 50 * MINUTE_MS, 30],
  ].map(([s, n]) => [bucketStart(s, '1m'), bucketStart(s, '1m') + n * MINUTE_MS]);
}

function inGaps(t: number, gaps: Array<[number, number]>): boolean {
  return gaps.some(([s, e]) => t >= s && t < e);
}

/** The candles of `venue` for one day of spot candles. */
export function demoVenueDay(sym: DemoSymbol, spot: DemoCandle[], venue: DemoVenue): DemoCandle[] {
  return venue === 'spot' ? spot : demoPerpOf(sym, spot, venue);
}

/** The candles as stored: prices with the symbol's tick, volumes with 4 decimals. */
export function inputs(candles: DemoCandle[], sym: DemoSymbol): CandleInput[] {
  return candles.map((c) => ({
    time: c.time,
    open: c.open.toFixed(sym.decimals),
    high: c.high.toFixed(sym.decimals),
    low: c.low.toFixed(sym.decimals),
    close: c.close.toFixed(sym.decimals),
    volume: c.volume.toFixed(4),
  }));
}

/** One series' candles as stored: hourly ones before the window's cut, minutes from it. */
export interface DemoCandles {
  hours: CandleInput[];
  minutes: CandleInput[];
}

/** The candles of `sym` over `w` on the demo's exchanges (`venues` only), the gappy series' gaps cut out. */
export function demoCandles(sym: DemoSymbol, w: DemoWindow, venues: readonly DemoVenue[] = ALL_DEMO_VENUES): Partial<Record<DemoVenue, DemoCandles>> {
  const minutes = new Map(venues.map((v) => [v, [] as DemoCandle[]]));
  const hours = new Map(venues.map((v) => [v, [] as DemoCandle[]]));
  const cutDay = bucketStart(w.cut, '1d');
  for (let day = bucketStart(w.hourStart, '1d'); day <= w.lastMinute; day += DAY_MS) {
    // Days before the cut day are generated hourly; the rest by the minute.
    const spot = demoSpotDay(sym, day, day < cutDay ? HOUR_MS : MINUTE_MS);
    for (const venue of venues) {
      const candles = demoVenueDay(sym, spot, venue);
      const old = candles.filter((c) => c.time >= w.hourStart && c.time < w.cut);
      hours.get(venue)!.push(...(day < cutDay ? old : aggregate(old, HOUR_MS)));
      minutes.get(venue)!.push(...candles.filter((c) => c.time >= w.cut && c.time <= w.lastMinute));
    }
  }
  const gaps = minuteGaps(w.lastMinute);
  const hourGaps: Array<[number, number]> = [[w.cut - 30 * DAY_MS + 5 * HOUR_MS, w.cut - 30 * DAY_MS + 7 * HOUR_MS]];
  const stored = (venue: DemoVenue): DemoCandles => {
    const gappy = sym.symbol === DEMO_GAPPY.symbol && venue === DEMO_GAPPY.venue;
    const h = hours.get(venue)!;
    const m = minutes.get(venue)!;
    return {
      hours: inputs(gappy ? h.filter((c) => !inGaps(c.time, hourGaps)) : h, sym),
      minutes: inputs(gappy ? m.filter((c) => !inGaps(c.time, gaps)) : m, sym),
    };
  };
  return Object.fromEntries(venues.map((v) => [v, stored(v)]));
}

/**
 * A new series' bars kept in memory, as a first import keeps its file's (imported-bars.ts): the
 * rollups to write (5m, 15m and 1h from the minutes; 4h and 1d from every 1h bar, the imported
 * hours and those rolled from minutes, as ROLLUP_SQL rolls each timeframe from the next finer)
 * and every timeframe's bars for its features. Null when a value cannot be kept exactly.
 */
function keptBars(c: DemoCandles, nowMs: number): { rollups: RollupBars[]; histories: Map<CandleTimeframe, BarHistory> } | null {
  const fromMinutes = new ImportedBars('1m');
  for (const row of c.minutes) fromMinutes.addRow(row);
  const m = fromMinutes.finish(nowMs);
  if (!m) return null;
  const minuteRollups = m.rollups.filter((r) => r.timeframe === '5m' || r.timeframe === '15m' || r.timeframe === '1h');
  const fromHours = new ImportedBars('1h');
  for (const row of c.hours) fromHours.addRow(row);
  minuteRollups.find((r) => r.timeframe === '1h')?.addTo(fromHours);
  const h = fromHours.finish(nowMs);
  if (!h) return null;
  const rollups = [...minuteRollups, ...h.rollups];
  const histories = new Map<CandleTimeframe, BarHistory>([
    ['1m', m.own],
    ['1h', h.own],
  ]);
  for (const r of rollups) if (r.timeframe !== '1h') histories.set(r.timeframe, r.history());
  return { rollups, histories };
}

/** Every row a new series' seed writes, encoded, in the order written. */
export interface EncodedSeries {
  /** The hours, the minutes, then the rollups. */
  candles: Array<CopyChunks<CandleTimeframe> & { derived: boolean }>;
  /** Every timeframe's technical features, chunk by chunk (each chunk a write of its own). */
  features: Array<CopyChunks<CandleTimeframe>>;
}

/** The same rows with the features made as they are written (inline: one chunk in memory at a time). */
export type LazySeries = Omit<EncodedSeries, 'features'> & { features: Iterable<CopyChunks<CandleTimeframe>> | AsyncIterable<CopyChunks<CandleTimeframe>> };

function encodedCandles(seriesId: number, timeframe: CandleTimeframe, rows: readonly CandleInput[]): CopyChunks<CandleTimeframe> & { derived: boolean } {
  const out = new BinaryRows(64 * 1024);
  writeInputRows(out, candleRowFrame(seriesId, timeframe, false), rows);
  const span = rows.length ? { fromMs: rows[0].time, toMs: rows[rows.length - 1].time } : { fromMs: Infinity, toMs: -Infinity };
  return { timeframe, derived: false, span, chunks: rows.length ? [out.take()] : [], count: rows.length };
}

/** Non-empty rollups (`insertRollups` writes nothing for empty ones). */
function encodedRollups(seriesId: number, bars: RollupBars): CopyChunks<CandleTimeframe> & { derived: boolean } {
  const span = { fromMs: bars.time(0), toMs: bars.time(bars.length - 1) };
  return { timeframe: bars.timeframe, derived: true, span, chunks: [...rollupCopyChunks(candleRowFrame(seriesId, bars.timeframe, true), bars)], count: bars.length };
}

/**
 * The rows of a new series (`seriesId` holds no candle) holding `c`, encoded; null when its bars
 * cannot be kept in memory exactly (the seed then writes `c` and derives the rest in SQL).
 */
export async function encodedSeries(seriesId: number, c: DemoCandles, nowMs: number): Promise<EncodedSeries | null> {
  const lazy = lazySeries(seriesId, c, nowMs);
  if (!lazy) return null;
  const features: EncodedSeries['features'] = [];
  for await (const f of lazy.features) features.push(f);
  return { ...lazy, features };
}

/** encodedSeries with the features made as they are asked for. */
function lazySeries(seriesId: number, c: DemoCandles, nowMs: number): (LazySeries & { features: AsyncIterable<CopyChunks<CandleTimeframe>> }) | null {
  const bars = keptBars(c, nowMs);
  if (!bars) return null;
  const candles = [encodedCandles(seriesId, '1h', c.hours), encodedCandles(seriesId, '1m', c.minutes), ...bars.rollups.filter((r) => r.length > 0).map((r) => encodedRollups(seriesId, r))];
  const features = async function* () {
    for (const tf of CANDLE_TIMEFRAMES) {
      const history = bars.histories.get(tf);
      if (history) yield* encodedTechnical(seriesId, tf, history);
    }
  };
  return { candles, features: features() };
}

/** A series of the seed: its symbol (an index into DEMO_SYMBOLS), venue, id, and whether it holds no candle. */
export interface DemoSeries {
  symbol: number;
  venue: DemoVenue;
  id: number;
  empty: boolean;
}

/** One series' seed: its candles (kept only where they are written as they are), and its encoded rows if new. */
export interface SeriesSeed {
  series: DemoSeries;
  counts: { hours: number; minutes: number };
  candles: DemoCandles | null;
  encoded: EncodedSeries | null;
}

/** A seed as it is written: its features possibly made as they are written. */
export type WritableSeed = Omit<SeriesSeed, 'encoded'> & { encoded: LazySeries | null };

/** The seeds of one symbol's series (`series`, its venues), in order, every row made (a worker posts them). */
export async function symbolSeeds(symbol: number, series: readonly DemoSeries[], w: DemoWindow): Promise<SeriesSeed[]> {
  return seedsOf(symbol, series, w, (id, c) => encodedSeries(id, c, w.nowMs));
}

/** symbolSeeds with each series' features made as they are written (inline: less memory at once). */
export async function lazySymbolSeeds(symbol: number, series: readonly DemoSeries[], w: DemoWindow): Promise<WritableSeed[]> {
  return seedsOf(symbol, series, w, async (id, c) => lazySeries(id, c, w.nowMs));
}

async function seedsOf<E extends LazySeries>(symbol: number, series: readonly DemoSeries[], w: DemoWindow, encode: (id: number, c: DemoCandles) => Promise<E | null>) {
  const all = demoCandles(DEMO_SYMBOLS[symbol], w, series.map((s) => s.venue));
  const out: Array<Omit<SeriesSeed, 'encoded'> & { encoded: E | null }> = [];
  for (const s of series) {
    const c = all[s.venue]!;
    const encoded = s.empty ? await encode(s.id, c) : null;
    out.push({ series: s, counts: { hours: c.hours.length, minutes: c.minutes.length }, candles: encoded ? null : c, encoded });
  }
  return out;
}
