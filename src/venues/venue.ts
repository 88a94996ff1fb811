/**
 * The venue port: what ingestion needs from an exchange, whatever its wire format. One file per
 * venue implements it (hyperliquid.venue.ts, binance.venue.ts) and registry.ts makes the ones
 * the served exchanges need. Rows come out validated: open times aligned, decimals as exact strings,
 * only closed candles; a perpetual venue may also push its context (open interest, prices).
 */
import type { CandleInput, FundingRateInput } from '../domain/csv-rows';
import type { DerivativesInput, PerpContext } from '../domain/derivatives';
import type { SymbolMap } from '../domain/ingest-settings';
import type { CandleTimeframe } from '../domain/timeframe';

/** What a venue reports as it is used (metrics). Every method is optional to call, cheap, synchronous. */
export interface VenueObserver {
  /** A REST request ended: HTTP status as text, or 'error' (no answer). */
  request(venue: string, status: string): void;
  weight(venue: string, weight: number): void;
  reconnect(venue: string): void;
  /** A row failed the venue schema or a check and was dropped (kind: schema, time, values, range, duplicate). */
  rejected(venue: string, kind: string, reason: string): void;
}

export const NO_OBSERVER: VenueObserver = { request() {}, weight() {}, reconnect() {}, rejected() {} };

/** What every adapter is built from (registry.ts fills it from the configuration). */
export interface VenueOptions {
  apiUrl: string;
  wsUrl: string;
  weightPerMinute: number;
  symbolMap: SymbolMap;
  /** A socket silent this long is reconnected. */
  socketTimeoutMs: number;
  observer: VenueObserver;
  now: () => number;
}

/** One page of candles, as asked: the rows served, and the open times of rows rejected. */
export interface CandlePage {
  rows: CandleInput[];
  /** Open times of rejected rows (their slots are not venue gaps: ask again later); null: a rejected row had no usable time. */
  rejectedTimes: number[] | null;
}

/** A closed candle pushed on a venue's socket. */
export interface ClosedCandle {
  instrument: string;
  candle: CandleInput;
}

/** A perpetual's context pushed on a venue's socket (or answered by a snapshot), validated. */
export interface ContextUpdate {
  instrument: string;
  context: PerpContext;
  /** The moment the values describe when not now (a closed minute's values asked after it). */
  atMs?: number;
}

/** A 5-minute bucket's open interest from a venue's history: the value at its close. */
export interface OpenInterestPoint {
  /** Open time of the 5m bucket. */
  time: number;
  openInterest: string;
}

export interface CandleStreamHandlers {
  /** The socket is (re)connected and subscribed: what happened while it was down must be fetched. */
  onConnected(): void;
  onDisconnected(reason: string): void;
  onClosed(c: ClosedCandle): void;
  /** Given: the stream also follows the instruments' context (venues with `contexts`). */
  onContext?(u: ContextUpdate): void;
}

export interface CandleStream {
  readonly connected: boolean;
  close(): void;
}

export interface VenueAdapter {
  /** The adapter's name (metrics, logs, INGEST_SYMBOL_MAP keys): 'hyperliquid', 'binance'. */
  readonly id: string;
  /** How many of the most recent candles of an interval the venue serves (null: all its history). */
  readonly horizonCandles: number | null;
  /** Largest number of candles one request returns. */
  readonly pageCandles: number;
  /** The venue's instrument name for a symbol (BTC-USDT), by its own rule. */
  instrument(symbol: string): string;
  /** Closed candles opening in [startMs, endMs] (at most pageCandles), ascending. */
  candles(instrument: string, timeframe: CandleTimeframe, startMs: number, endMs: number): Promise<CandlePage>;
  /**
   * Funding rates settled in [startMs, endMs ?? now], one per hour, ascending, all pages; absent
   * on venues without funding.
   */
  funding?(instrument: string, startMs: number, endMs?: number): Promise<FundingRateInput[]>;
  /** The venue's current funding interval of an instrument, in hours; absent: the exchange's default. */
  fundingInterval?(instrument: string): Promise<number>;
  /** The context of `instruments` now (a snapshot); absent on venues without one. */
  contexts?(instruments: readonly string[]): Promise<ContextUpdate[]>;
  /**
   * The context the venue keeps of the closed minutes opening in [startMs, endMs] (at most
   * pageCandles), ascending: mark, index and premium; open interest, mid and the predicted rate
   * unknown (null). Absent: the venue keeps none (a backfill records nothing).
   */
  pastContext?(instrument: string, startMs: number, endMs: number): Promise<DerivativesInput[]>;
  /** Open interest of the 5m buckets opening in [startMs, endMs], as far back as the venue keeps it, ascending. */
  openInterestHistory?(instrument: string, startMs: number, endMs: number): Promise<OpenInterestPoint[]>;
  /** Follow the 1m candles of `instruments` (and their context, when asked), reconnecting until closed. */
  follow(instruments: readonly string[], handlers: CandleStreamHandlers): CandleStream;
  /** Requests made and weight spent since start. */
  readonly totals: { requests: number; weight: number };
  /** How long after a minute's end the venue's values of it may still arrive (ContextMinutes); absent: 0. */
  readonly contextSettleMs?: number;
  /**
   * The instruments the venue lists now; absent: every instrument is assumed listed. One it
   * does not list is logged once and skipped there.
   */
  listed?(): Promise<Set<string>>;
  /** Abort requests and waits in progress. */
  close(): void;
}

/**
 * The venue refused in a way retrying soon will not fix: a 4xx other than 429, an IP ban
 * longer than the caller waits, or too many failed attempts. `mds sync` exits with its message.
 */
export class VenueRefusedError extends Error {
  override name = 'VenueRefusedError';
  constructor(
    readonly venue: string,
    message: string,
    /** When the venue may be asked again (ms since epoch), if it said. */
    readonly retryAt: number | null = null,
  ) {
    super(`${venue} refused: ${message}`);
  }
}
