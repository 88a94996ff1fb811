/**
 * What the ingesting process knows about its own progress, in memory: which venue sockets are
 * connected, and per series the newest stored 1m candle and when each closed candle was seen.
 * /health, /metrics and the status reported to the database read it.
 */
import { ingestLagSeconds } from '../../domain/market';

export interface SeriesLag {
  seriesId: number;
  venue: string;
  exchange: string;
  symbol: string;
  /** Open time of the newest stored 1m candle (null: none yet). */
  lastClosed: number | null;
  /** Seconds from that candle's close to now (null: none yet). */
  lagSeconds: number | null;
}

export class IngestStatus {
  private readonly connected = new Map<string, boolean>();
  private readonly newest = new Map<number, number>();
  private readonly series = new Map<number, { venue: string; exchange: string; symbol: string }>();
  /** 'leader' while this process ingests, 'standby' while another does. */
  role: 'leader' | 'standby' | 'stopped' = 'standby';

  constructor(private readonly clock: () => number) {}

  track(seriesId: number, venue: string, exchange: string, symbol: string): void {
    this.series.set(seriesId, { venue, exchange, symbol });
    if (!this.connected.has(venue)) this.connected.set(venue, false);
  }

  venueConnected(venue: string, on: boolean): void {
    this.connected.set(venue, on);
  }

  isConnected(venue: string): boolean {
    return this.connected.get(venue) ?? false;
  }

  stored(seriesId: number, openMs: number): void {
    if (openMs > (this.newest.get(seriesId) ?? -Infinity)) this.newest.set(seriesId, openMs);
  }

  newestStored(seriesId: number): number | null {
    return this.newest.get(seriesId) ?? null;
  }

  lags(): SeriesLag[] {
    const now = this.clock();
    return [...this.series].map(([seriesId, s]) => {
      const last = this.newest.get(seriesId) ?? null;
      return { seriesId, ...s, lastClosed: last, lagSeconds: last === null ? null : ingestLagSeconds(last, now) };
    });
  }

  /**
   * Per venue: connected, its series, and the lag of the most lagging one (the /health entry);
   * null while a series has no candle stored yet (or the venue has no series).
   */
  venues(): Record<string, { connected: boolean; max_lag_seconds: number | null; series: number }> {
    const lags = this.lags();
    return Object.fromEntries(
      [...this.connected].map(([venue, connected]) => {
        const mine = lags.filter((l) => l.venue === venue).map((l) => l.lagSeconds);
        const known = mine.length > 0 && mine.every((x) => x !== null);
        return [venue, { connected, max_lag_seconds: known ? Math.max(...(mine as number[])) : null, series: mine.length }];
      }),
    );
  }
}
