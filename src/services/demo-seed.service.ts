/**
 * `mds seed-demo`: writes the deterministic demo data set (domain/demo-data.ts) for both
 * venues, ending at the last complete period before `now`: 1m candles for the last 7 days,
 * imported 1h candles for the 400 days before, every coarser timeframe rolled up, hourly
 * funding for the perpetual venue over the last 60 days, and a few gaps on one series.
 */
import { oneBatch } from '../db/bulk-upsert';
import type { Repositories, Store } from '../db/store';
import type { CandleInput, FundingRateInput } from '../domain/csv-rows';
import {
  DEMO_SYMBOLS,
  DemoCandle,
  DemoSymbol,
  aggregate,
  demoFundingRate,
  demoPerpOf,
  demoSpotDay,
} from '../domain/demo-data';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../domain/time';
import { CANDLE_TIMEFRAMES, bucketStart, lastClosedOpen, type CandleTimeframe } from '../domain/timeframe';
import { ImportedBars, type BarHistory, type RollupBars } from '../domain/imported-bars';
import type { Exchanges } from '../domain/exchanges';
import type { FeaturePrecomputeService } from './feature-precompute.service';

export const DEMO_MINUTE_DAYS = 7;
export const DEMO_HOUR_DAYS = 400;
export const DEMO_FUNDING_DAYS = 60;
/** The series that carries the deliberate gaps. */
export const DEMO_GAPPY = { symbol: 'SOL-USDT', venue: 'spot' as const };

export interface SeedSummary {
  series: number;
  candles1m: number;
  candles1h: number;
  funding: number;
  featureRows: number;
  endMs: number;
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

/**
 * A new series' bars kept in memory, as a first import keeps its file's (imported-bars.ts): the
 * rollups to write (5m, 15m and 1h from the minutes; 4h and 1d from every 1h bar, the imported
 * hours and those rolled from minutes, as ROLLUP_SQL rolls each timeframe from the next finer)
 * and every timeframe's bars for its features. Null when a value cannot be kept exactly.
 */
function keptBars(hours: CandleInput[], minutes: CandleInput[], nowMs: number): { rollups: RollupBars[]; histories: Map<CandleTimeframe, BarHistory> } | null {
  const fromMinutes = new ImportedBars('1m');
  for (const c of minutes) fromMinutes.addRow(c);
  const m = fromMinutes.finish(nowMs);
  if (!m) return null;
  const minuteRollups = m.rollups.filter((r) => r.timeframe === '5m' || r.timeframe === '15m' || r.timeframe === '1h');
  const fromHours = new ImportedBars('1h');
  for (const c of hours) fromHours.addRow(c);
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

export class DemoSeedService {
  constructor(
    private readonly store: Pick<Store, 'series' | 'locks' | 'transaction' | 'analyze'>,
    private readonly exchanges: Exchanges,
    private readonly features: FeaturePrecomputeService,
  ) {}

  /**
   * Seed when the database is empty, under a session advisory lock: replicas starting together
   * on a fresh database seed once (the others wait, then find it seeded). Null when not empty.
   */
  async seedIfEmpty(nowMs: number, onSeeding: () => void = () => undefined): Promise<SeedSummary | null> {
    return this.store.locks.withLock('demoSeed', async () => {
      if (!(await this.store.series.isEmpty())) return null;
      onSeeding();
      return this.seed(nowMs);
    });
  }

  async seed(nowMs: number): Promise<SeedSummary> {
    const lastMinute = lastClosedOpen(nowMs, '1m');
    const cut = bucketStart(nowMs, '1h') - DEMO_MINUTE_DAYS * DAY_MS;
    const hourStart = cut - DEMO_HOUR_DAYS * DAY_MS;
    const gaps = minuteGaps(lastMinute);
    const hourGaps: Array<[number, number]> = [[cut - 30 * DAY_MS + 5 * HOUR_MS, cut - 30 * DAY_MS + 7 * HOUR_MS]];
    const summary: SeedSummary = { series: 0, candles1m: 0, candles1h: 0, funding: 0, featureRows: 0, endMs: lastMinute };

    for (const sym of DEMO_SYMBOLS) {
      const minutes = { spot: [] as DemoCandle[], perp: [] as DemoCandle[] };
      const hours = { spot: [] as DemoCandle[], perp: [] as DemoCandle[] };
      const cutDay = bucketStart(cut, '1d');
      for (let day = bucketStart(hourStart, '1d'); day <= lastMinute; day += DAY_MS) {
        // Days before the cut day are generated hourly; the rest by the minute.
        const spot = demoSpotDay(sym, day, day < cutDay ? HOUR_MS : MINUTE_MS);
        const perp = demoPerpOf(sym, spot);
        for (const [venue, candles] of [['spot', spot], ['perp', perp]] as const) {
          const old = candles.filter((c) => c.time >= hourStart && c.time < cut);
          hours[venue].push(...(day < cutDay ? old : aggregate(old, HOUR_MS)));
          minutes[venue].push(...candles.filter((c) => c.time >= cut && c.time <= lastMinute));
        }
      }
      for (const venue of ['spot', 'perp'] as const) {
        const exchange = venue === 'spot' ? this.exchanges.spot : this.exchanges.perp;
        const gappy = sym.symbol === DEMO_GAPPY.symbol && venue === DEMO_GAPPY.venue;
        const m = gappy ? minutes[venue].filter((c) => !inGaps(c.time, gaps)) : minutes[venue];
        const h = gappy ? hours[venue].filter((c) => !inGaps(c.time, hourGaps)) : hours[venue];
        const { seriesId, kept } = await this.store.transaction(async (tx) => {
          const id = await tx.series.ensure({ exchange, symbol: sym.symbol });
          // A later re-seed must not import hourly candles over hours already covered by
          // minutes (their 1h is the rollup of those minutes).
          const first = await tx.candles.firstOpen(id, '1m');
          const hoursBefore = inputs(first !== null ? h.filter((c) => c.time < first) : h, sym);
          const minuteRows = inputs(m, sym);
          const bars = (await tx.candles.isEmpty(id)) ? keptBars(hoursBefore, minuteRows, nowMs) : null;
          await tx.candles.upsert(id, '1h', oneBatch(hoursBefore));
          await tx.candles.upsert(id, '1m', oneBatch(minuteRows));
          if (bars) {
            for (const r of bars.rollups) await tx.candles.insertRollups(id, r);
          } else {
            await tx.candles.rollUp({ seriesId: id, from: '1h', startMs: hourStart, endMs: cut - 1 }, nowMs);
            await tx.candles.rollUp({ seriesId: id, from: '1m', startMs: cut, endMs: lastMinute }, nowMs);
          }
          if (venue === 'perp') summary.funding += await this.writeFunding(tx, id, sym, nowMs);
          return { seriesId: id, kept: bars?.histories };
        });
        for (const tf of CANDLE_TIMEFRAMES) summary.featureRows += await this.features.technical(seriesId, tf, null, kept?.get(tf));
        summary.series++;
        summary.candles1m += m.length;
        summary.candles1h += h.length;
      }
    }
    // Planner statistics for what was written, parents and partitions (PGlite never analyzes),
    // before the funding features join the candles: without them that join is planned for
    // empty tables and compares every funding hour with every candle.
    await this.store.analyze();
    for (const sym of DEMO_SYMBOLS) await this.features.funding(sym.symbol);
    return summary;
  }

  private async writeFunding(tx: Repositories, seriesId: number, sym: DemoSymbol, nowMs: number): Promise<number> {
    const last = bucketStart(nowMs, '1h');
    const rows: FundingRateInput[] = [];
    for (let t = last - DEMO_FUNDING_DAYS * DAY_MS + HOUR_MS; t <= last; t += HOUR_MS) {
      rows.push({ time: t, rate: demoFundingRate(sym, t).toFixed(8) });
    }
    await tx.funding.upsert(seriesId, oneBatch(rows));
    return rows.length;
  }
}
