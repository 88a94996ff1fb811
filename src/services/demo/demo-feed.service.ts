/**
 * The demo feed: while the demo data is served and nothing is ingested, each demo series gets
 * its next 1m candles from the demo model at every minute close (a perpetual also its funding,
 * hourly or 8-hourly, and its context minutes), through the same write path as ingestion, so a fresh offline install stays live
 * (freshness 1). A series is extended only while its newest candle is the model's own: data a
 * user imported under a demo symbol is never touched. DEMO_FEED=false turns it off.
 */
import type { Store } from '../../db/store';
import { CANDLE_TEXT } from '../../domain/candle-text';
import type { CandleInput } from '../../domain/csv-rows';
import { DEMO_SYMBOLS, demoFundingRate, demoPerpOf, demoSpotDay, demoUsdmFundingRate, type DemoCandle, type DemoSymbol } from '../../domain/demo-data';
import { DAY_MS, MINUTE_MS } from '../../domain/time';
import { FUNDING_INTERVAL_MS, bucketStart, lastClosedOpen } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import type { LiveWriter } from '../ingest/live-writer';
import { demoContextRows, type DemoPerpetual } from './demo-context';
import { ALL_DEMO_VENUES, inputs, type DemoVenue } from './demo-seed-rows';
import { repeat } from '../runtime/repeat';

/** Longest stretch appended at once (a server stopped for longer leaves the rest as a gap). */
const MAX_CATCH_UP_MS = DAY_MS;

export class DemoFeedService {
  private days = new Map<string, Record<DemoVenue, DemoCandle[]>>();

  constructor(
    private readonly store: Pick<Store, 'series' | 'candles' | 'funding' | 'derivatives'>,
    private readonly exchanges: Exchanges,
    private readonly writer: LiveWriter,
    private readonly clock: () => number,
  ) {}

  /** Append what each demo series misses up to the last closed minute; returns candles written. */
  async tick(): Promise<number> {
    const now = this.clock();
    const last = lastClosedOpen(now, '1m');
    let written = 0;
    for (const sym of DEMO_SYMBOLS) {
      for (const role of ALL_DEMO_VENUES) {
        const exchange = this.exchanges.byKey(role)?.name;
        const id = exchange === undefined ? undefined : await this.store.series.idOf({ exchange, symbol: sym.symbol });
        if (id === undefined) continue;
        const newest = (await this.store.candles.openSpan(id, '1m', new Date(now))).last;
        if (newest === null || newest >= last || !(await this.isModelCandle(id, sym, role, newest))) continue;
        const rows: CandleInput[] = [];
        for (let t = Math.max(newest + MINUTE_MS, last - MAX_CATCH_UP_MS); t <= last; t += MINUTE_MS) rows.push(this.candle(sym, role, t));
        await this.writer.candles({ id, symbol: sym.symbol }, '1m', rows);
        written += rows.length;
        if (role === 'perp') await this.appendFunding(id, sym, now);
        if (role === 'binance-perp') await this.appendUsdmFunding(id, sym, now);
        if (role !== 'spot') await this.appendContext(id, sym, role, last);
      }
    }
    this.forgetOldDays(last);
    return written;
  }

  /** Run tick() a second after every minute close until the returned stop is called. */
  start(onError: (err: unknown) => void): () => Promise<void> {
    return repeat(
      () => this.tick().then(() => undefined, onError),
      () => MINUTE_MS - (this.clock() % MINUTE_MS) + 1_000,
    );
  }

  private async isModelCandle(id: number, sym: DemoSymbol, role: DemoVenue, t: number): Promise<boolean> {
    const [stored] = (await this.store.candles.pages([id], '1m', new Date(t), new Date(t), 1, false)).get(id) ?? [];
    return stored !== undefined && Number(stored[CANDLE_TEXT.close.at]) === Number(this.candle(sym, role, t).close);
  }

  private candle(sym: DemoSymbol, role: DemoVenue, t: number): CandleInput {
    const day = bucketStart(t, '1d');
    const key = `${sym.symbol}|${day}`;
    let d = this.days.get(key);
    if (!d) {
      const spot = demoSpotDay(sym, day);
      d = { spot, perp: demoPerpOf(sym, spot), 'binance-perp': demoPerpOf(sym, spot, 'usdm') };
      this.days.set(key, d);
    }
    return inputs([d[role][(t - day) / MINUTE_MS]], sym)[0];
  }

  private async appendFunding(id: number, sym: DemoSymbol, now: number): Promise<void> {
    const hour = bucketStart(now, '1h');
    const latest = await this.store.funding.latestTime(id);
    if (latest === null || latest >= hour) return;
    const rows = [];
    for (let t = Math.max(latest + FUNDING_INTERVAL_MS, hour - MAX_CATCH_UP_MS); t <= hour; t += FUNDING_INTERVAL_MS) {
      rows.push({ time: t, rate: demoFundingRate(sym, t).toFixed(8) });
    }
    await this.writer.funding({ id, symbol: sym.symbol }, rows);
  }

  /** Binance USD-M's settlements every 8 hours. */
  private async appendUsdmFunding(id: number, sym: DemoSymbol, now: number): Promise<void> {
    const period = 8 * FUNDING_INTERVAL_MS;
    const due = Math.floor(now / period) * period;
    const latest = await this.store.funding.latestTime(id);
    if (latest === null || latest >= due) return;
    const rows = [];
    for (let t = Math.max(latest + period, due - MAX_CATCH_UP_MS); t <= due; t += period) rows.push({ time: t, rate: demoUsdmFundingRate(sym, t).toFixed(8) });
    const f = this.exchanges.byKey('binance-perp')!.funding!;
    await this.writer.funding({ id, symbol: sym.symbol }, rows, { maxHours: f.maxHours, firstHours: f.defaultHours });
  }

  /** The context minutes after the newest one, up to `last` (series the seed gave a context only). */
  private async appendContext(id: number, sym: DemoSymbol, role: DemoPerpetual, last: number): Promise<void> {
    const latest = await this.store.derivatives.latestTime(id);
    if (latest === null || latest >= last) return;
    const rows = demoContextRows(sym, role, Math.max(latest + MINUTE_MS, last - MAX_CATCH_UP_MS), last);
    await this.writer.derivatives([{ series: { id, symbol: sym.symbol }, rows }]);
  }

  private forgetOldDays(lastMs: number): void {
    const keep = bucketStart(lastMs - MAX_CATCH_UP_MS, '1d');
    for (const key of this.days.keys()) if (Number(key.split('|')[1]) < keep) this.days.delete(key);
  }
}
