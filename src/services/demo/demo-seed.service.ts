/**
 * `mds seed-demo`: the deterministic demo data set (domain/demo-data.ts) of the spec's two
 * exchanges up to the last complete period before `now`: 1m candles for 7 days, 1h for the 400
 * before, rollups, 60 days of hourly funding, a few gaps on one series (rows by
 * demo-seed-rows.ts, here or in a worker thread). `seedLater`, once the server serves: the
 * further exchanges' series (Binance USD-M and Bybit, settling every 8 or 4 hours) and two days
 * of every perpetual's context.
 */
import { oneBatch } from '../../db/bulk-upsert';
import type { Repositories, Store } from '../../db/store';
import { DEMO_SYMBOLS, demoSettlements, type DemoPerpetual, type DemoSymbol } from '../../domain/demo-data';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../domain/time';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import type { FeaturePrecomputeService } from '../derived/feature-precompute.service';
import { DEMO_PERPETUALS, demoContextRows, demoSettlementIntervals } from './demo-context';
import { DEMO_CONTEXT_DAYS, DEMO_FUNDING_DAYS, DEMO_LATER_DAYS, DEMO_LATER_VENUES, DEMO_VENUES, demoWindow, lazySymbolSeeds, type DemoCandles, type DemoSeries, type DemoWindow, type WritableSeed } from './demo-seed-rows';

export interface SeedSummary {
  series: number;
  /** Context minutes written (seedLater). */
  context?: number;
  candles1m: number;
  candles1h: number;
  funding: number;
  featureRows: number;
  endMs: number;
}

/**
 * Where a seed's rows are made: in this thread (`INLINE_ROWS`), or in the seed child's worker
 * thread (demo-seed.worker.ts), which makes a symbol's rows while the previous symbol's are
 * written. `symbol` is asked for each symbol in turn, the next before the previous is written.
 */
export interface SeedRowsSource {
  symbol(symbol: number, series: readonly DemoSeries[], w: DemoWindow): Promise<WritableSeed[]>;
}

/** Made here, each feature chunk as it is written (one in memory at a time). */
export const INLINE_ROWS: SeedRowsSource = { symbol: lazySymbolSeeds };

export class DemoSeedService {
  constructor(
    private readonly store: Pick<Store, 'series' | 'locks' | 'transaction' | 'analyze' | 'partitions' | 'derivatives'>,
    private readonly exchanges: Exchanges,
    private readonly features: FeaturePrecomputeService,
  ) {}

  /**
   * Seed when the database is empty, under a session advisory lock: replicas starting together
   * on a fresh database seed once (the others wait, then find it seeded). Null when not empty.
   */
  async seedIfEmpty(nowMs: number, onSeeding: () => void = () => undefined, rows: SeedRowsSource = INLINE_ROWS): Promise<SeedSummary | null> {
    return this.store.locks.withLock('demoSeed', async () => {
      if (!(await this.store.series.isEmpty())) return null;
      onSeeding();
      return this.seed(nowMs, rows);
    });
  }

  async seed(nowMs: number, rows: SeedRowsSource = INLINE_ROWS): Promise<SeedSummary> {
    const w = demoWindow(nowMs);
    const summary: SeedSummary = { series: 0, candles1m: 0, candles1h: 0, funding: 0, featureRows: 0, endMs: w.lastMinute };
    // Every series first, so that rows encoded ahead of their write know their series' id.
    const series = await this.store.transaction(async (tx) => {
      const out: DemoSeries[][] = [];
      for (const [symbol, sym] of DEMO_SYMBOLS.entries()) {
        const venues: DemoSeries[] = [];
        for (const venue of DEMO_VENUES) {
          const exchange = this.exchanges.byKey(venue)?.name;
          if (exchange === undefined) continue; // not served (EXCHANGES)
          const id = await tx.series.ensure({ exchange, symbol: sym.symbol });
          venues.push({ symbol, venue, id, empty: await tx.candles.isEmpty(id) });
        }
        out.push(venues);
      }
      return out;
    });
    // A symbol's rows are asked for before the previous symbol is written, and awaited after:
    // a failure meanwhile is not unhandled.
    const ask = (i: number) => {
      const asked = rows.symbol(i, series[i], w);
      asked.catch(() => undefined);
      return asked;
    };
    let next = ask(0);
    // While the first rows are made: the partitions every write will need (DDL, which each
    // write would otherwise run before its rows when it meets a period first). Timeframes below
    // 1h (the minutes and their rollups) start at the window's cut, the rest at its first hour.
    await this.store.partitions.ensure(
      CANDLE_TIMEFRAMES.flatMap((timeframe) =>
        (['candles', 'features'] as const).map((table) => ({ table, timeframe, fromMs: TIMEFRAME_MS[timeframe] < HOUR_MS ? w.cut : w.hourStart, toMs: w.lastMinute })),
      ),
    );
    for (let i = 0; i < series.length; i++) {
      const seeds = await next;
      if (i + 1 < series.length) next = ask(i + 1);
      for (const seed of seeds) await this.write(seed, w, summary);
    }
    // Planner statistics for what was written, parents and partitions (PGlite never analyzes),
    // before the funding features join the candles: without them that join is planned for
    // empty tables and compares every funding hour with every candle.
    await this.store.analyze();
    for (const sym of DEMO_SYMBOLS) await this.features.funding(sym.symbol);
    return summary;
  }

  /**
   * The demo's further exchanges (DEMO_LATER_VENUES, when served and empty) and two days of each
   * perpetual's context (where it has none), under the seed's lock. Run after the server is up:
   * the spec's two exchanges are served meanwhile. `afterStep` runs after each series and after
   * each symbol (the server collects its garbage there, so that each reuses the memory of the
   * one before). Null when there was nothing to seed.
   */
  async seedLater(nowMs: number, rows: SeedRowsSource = INLINE_ROWS, afterStep: () => void = () => undefined): Promise<SeedSummary | null> {
    const w = demoWindow(nowMs, DEMO_LATER_DAYS.hours, DEMO_LATER_DAYS.minutes);
    const summary: SeedSummary = { series: 0, candles1m: 0, candles1h: 0, funding: 0, featureRows: 0, endMs: w.lastMinute };
    let context = 0;
    // The lock a symbol at a time: embedded, its session holds the one connection, and the
    // server's requests (its health check among them) go between the symbols.
    for (const [symbol, sym] of DEMO_SYMBOLS.entries()) {
      context += await this.store.locks.withLock('demoSeed', async () => {
        const later = await this.store.transaction(async (tx) => {
          const out: DemoSeries[] = [];
          for (const venue of DEMO_LATER_VENUES) {
            const exchange = this.exchanges.byKey(venue)?.name;
            if (exchange === undefined) continue;
            const id = await tx.series.ensure({ exchange, symbol: sym.symbol });
            if (await tx.candles.isEmpty(id)) out.push({ symbol, venue, id, empty: true });
          }
          return out;
        });
        // A series at a time, each made after the one before is written and collected: one
        // series' rows in memory at once.
        for (const series of later) {
          for (const seed of await rows.symbol(symbol, [series], w)) await this.write(seed, w, summary);
          afterStep();
        }
        const written = await this.writeContexts(sym, w);
        if (later.length > 0) await this.features.funding(sym.symbol);
        return written;
      });
      afterStep();
    }
    return summary.series > 0 || context > 0 ? { ...summary, context } : null;
  }

  /** Two days of context minutes, rolled up, for each perpetual series of `sym` that has none. */
  private async writeContexts(sym: DemoSymbol, w: DemoWindow): Promise<number> {
    const from = w.lastMinute - DEMO_CONTEXT_DAYS * DAY_MS + MINUTE_MS;
    let written = 0;
    for (const venue of DEMO_PERPETUALS) {
      const exchange = this.exchanges.byKey(venue)?.name;
      const id = exchange === undefined ? undefined : await this.store.series.idOf({ exchange, symbol: sym.symbol });
      if (id === undefined || (await this.store.derivatives.latestTime(id)) !== null) continue;
      const rows = demoContextRows(sym, venue, from, w.lastMinute);
      await this.store.transaction(async (tx) => {
        await tx.derivatives.upsert(id, oneBatch(rows));
        await tx.derivatives.rollUp(id, from, w.lastMinute, w.nowMs);
      });
      written += rows.length;
    }
    return written;
  }

  /** One series: its candles and funding in a transaction, then its features. */
  private async write(seed: WritableSeed, w: DemoWindow, summary: SeedSummary): Promise<void> {
    const { id, venue, symbol } = seed.series;
    const encoded = seed.encoded;
    await this.store.transaction(async (tx) => {
      if (encoded) for (const rows of encoded.candles) await tx.candles.writeEncoded(id, rows);
      else await this.writeCandles(tx, id, seed.candles!, w);
      if (venue !== 'spot') summary.funding += await this.writeFunding(tx, id, venue, DEMO_SYMBOLS[symbol], w.nowMs);
    });
    if (encoded) for await (const rows of encoded.features) summary.featureRows += await this.store.transaction((tx) => tx.features.writeEncoded(id, rows));
    else for (const tf of CANDLE_TIMEFRAMES) summary.featureRows += await this.features.technical(id, tf, null);
    summary.series++;
    summary.candles1m += seed.counts.minutes;
    summary.candles1h += seed.counts.hours;
  }

  /** A series that holds candles already (a second seed): the candles upserted, the rest derived in SQL. */
  private async writeCandles(tx: Repositories, id: number, c: DemoCandles, w: DemoWindow): Promise<void> {
    // A later re-seed must not import hourly candles over hours already covered by minutes
    // (their 1h is the rollup of those minutes).
    const first = await tx.candles.firstOpen(id, '1m');
    await tx.candles.upsert(id, '1h', oneBatch(first !== null ? c.hours.filter((r) => r.time < first) : c.hours));
    await tx.candles.upsert(id, '1m', oneBatch(c.minutes));
    await tx.candles.rollUp({ seriesId: id, from: '1h', startMs: w.hourStart, endMs: w.cut - 1 }, w.nowMs);
    await tx.candles.rollUp({ seriesId: id, from: '1m', startMs: w.cut, endMs: w.lastMinute }, w.nowMs);
  }

  /** A perpetual's settlements of the last DEMO_FUNDING_DAYS, hourly or every few hours as its model says. */
  private async writeFunding(tx: Repositories, seriesId: number, venue: DemoPerpetual, sym: DemoSymbol, nowMs: number): Promise<number> {
    const rows = demoSettlements(sym, venue, nowMs - DEMO_FUNDING_DAYS * DAY_MS, nowMs);
    await tx.funding.upsert(seriesId, oneBatch(rows), demoSettlementIntervals(this.exchanges, venue, sym));
    return rows.length;
  }
}
