/**
 * The demo feed: while the demo data is served and nothing is ingested, each demo series gets
 * its next 1m candles from the demo model at every minute close (a perpetual also its funding,
 * hourly or every few hours as its model says, and its context minutes), through the same write path as ingestion, so a fresh offline install stays live
 * (freshness 1). A series is extended only while its newest candle is the model's own: data a
 * user imported under a demo symbol is never touched. DEMO_FEED=false turns it off.
 */
import type { Store } from '../../db/store';
import { CANDLE_TEXT } from '../../domain/candle-text';
import type { CandleInput } from '../../domain/csv-rows';
import { DEMO_SYMBOLS, demoSettlements, demoSpotDay, type DemoCandle, type DemoSymbol } from '../../domain/demo-data';
import { DAY_MS, MINUTE_MS } from '../../domain/time';
import { bucketStart, lastClosedOpen } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import type { LiveWriter } from '../ingest/live-writer';
import { demoContextRows, demoSettlementIntervals, type DemoPerpetual } from './demo-context';
import { ALL_DEMO_VENUES, demoVenueDay, inputs, type DemoVenue } from './demo-seed-rows';
import { repeat } from '../runtime/repeat';

/** Longest stretch appended at once (a server stopped for longer leaves the rest as a gap). */
const MAX_CATCH_UP_MS = DAY_MS;

export class DemoFeedService {
  /** A symbol's day of spot candles, and each venue's made from them when first asked for. */
  private days = new Map<string, Map<DemoVenue, DemoCandle[]>>();

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
        if (role === 'spot') continue;
        await this.appendFunding(id, sym, role, now);
        await this.appendContext(id, sym, role, last);
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
      d = new Map([['spot', demoSpotDay(sym, day)]]);
      this.days.set(key, d);
    }
    let candles = d.get(role);
    if (!candles) {
      candles = demoVenueDay(sym, d.get('spot')!, role);
      d.set(role, candles);
    }
    return inputs([candles[(t - day) / MINUTE_MS]], sym)[0];
  }

  /** The settlements after the newest one, up to `now` (series the seed gave funding only). */
  private async appendFunding(id: number, sym: DemoSymbol, role: DemoPerpetual, now: number): Promise<void> {
    const latest = await this.store.funding.latestTime(id);
    if (latest === null) return;
    const rows = demoSettlements(sym, role, Math.max(latest, now - MAX_CATCH_UP_MS), now);
    await this.writer.funding({ id, symbol: sym.symbol }, rows, demoSettlementIntervals(this.exchanges, role, sym));
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
