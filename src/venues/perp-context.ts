/**
 * What a perpetual venue's adapter keeps of each instrument's context while following it, and
 * the closed-minute poll the Binance USD-M and Bybit adapters share: their streams carry the
 * prices, but a closed minute's premium (and on USD-M its open interest and book) must be asked
 * for just after the minute ends.
 */
import type { z } from 'zod';
import type { DerivativesInput, PerpContext } from '../domain/derivatives';
import type { VenueHttp } from './venue-http';
import type { RowSink } from './venue-rows';

const MINUTE = 60_000;
/** The closed minute's values are asked this long after it ends (the venue closes its klines first). */
const MINUTE_POLL_DELAY_MS = 500;
const MINUTE_POLL_CHECK_MS = 250;

/** One backfill request's context: the venue, where rejections go, the instrument and the clock. */
export interface HistoryAsk {
  http: VenueHttp;
  sink: RowSink;
  symbol: string;
  /** Restates prices (divided) and open interest (multiplied): INGEST_SYMBOL_MAP's contract multiplier. */
  scale: number | undefined;
  now: number;
}

/** A price kline as venues send it: [open time, open, high, low, close, ...]. */
type PriceKline = [number, string, string, string, string, ...unknown[]];

/** The closes of a page of 1m price klines opening in [startMs, endMs] and closed by `a.now`, by open time. */
export function minuteCloses(a: HistoryAsk, rows: readonly unknown[], row: z.ZodType<PriceKline, unknown>, what: string, startMs: number, endMs: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const raw of rows) {
    const k = a.sink.parse(row, raw, (r) => (Array.isArray(r) ? Number(r[0]) : undefined));
    if (!k) continue;
    if (k[0] % MINUTE !== 0 || k[0] < startMs || k[0] > endMs) a.sink.reject('range', `${what} kline ${k[0]} outside the asked minutes`, k[0]);
    else if (k[0] + MINUTE <= a.now) out.set(k[0], k[4]);
  }
  return out;
}

/** What is known of an instrument's context: the stream's prices and the minute poll's values. */
export interface Known {
  markPrice?: string;
  oraclePrice?: string;
  fundingRate?: string;
  openInterest?: string;
  midPrice?: string | null;
  premium?: string | null;
}

/** The context once every value a row needs is known, else null. */
export function knownContext(k: Known): PerpContext | null {
  if (k.markPrice === undefined || k.oraclePrice === undefined || k.fundingRate === undefined || k.openInterest === undefined) return null;
  return { markPrice: k.markPrice, oraclePrice: k.oraclePrice, fundingRate: k.fundingRate, openInterest: k.openInterest, midPrice: k.midPrice ?? null, premium: k.premium ?? null };
}

/** The mid of a book's best bid and ask, exact (a decimal half of their sum); null for an empty side. */
export function midOf(bid: string, ask: string): string | null {
  const places = Math.max(bid.split('.')[1]?.length ?? 0, ask.split('.')[1]?.length ?? 0) + 1;
  const scale = 10n ** BigInt(places);
  const toUnits = (v: string) => {
    const [i, f = ''] = v.split('.');
    return BigInt(i + f.padEnd(places, '0'));
  };
  const b = toUnits(bid);
  const a = toUnits(ask);
  if (b <= 0n || a <= 0n) return null;
  // (a + b) / 2 with one more place: exact, as (a + b) * 5 / 10.
  const half = ((a + b) * 5n) / 10n;
  const whole = half / scale;
  const frac = (half % scale).toString().padStart(places, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/**
 * Just after each minute ends (by the clock, checked often: no timer drifts from it), `ask`
 * each instrument's values of that minute, one instrument after another; a failed ask is left
 * to the next minute (the stream's prices go on meanwhile). Returns the stop.
 */
export function pollClosedMinutes(instruments: readonly string[], now: () => number, ask: (instrument: string, minuteOpen: number) => Promise<void>): () => void {
  let stopped = false;
  let polling = false;
  /** The last minute asked (not the one before following began). */
  let polled = Math.floor(now() / MINUTE) * MINUTE - MINUTE;
  const poll = async (minuteOpen: number) => {
    for (const instrument of instruments) {
      if (stopped) return;
      try {
        await ask(instrument, minuteOpen);
      } catch {
        // the next minute asks again
      }
    }
  };
  const timer = setInterval(() => {
    const t = now();
    const minute = Math.floor(t / MINUTE) * MINUTE - MINUTE;
    if (polling || stopped || minute <= polled || t - (minute + MINUTE) < MINUTE_POLL_DELAY_MS) return;
    polled = minute;
    polling = true;
    void poll(minute).finally(() => (polling = false));
  }, MINUTE_POLL_CHECK_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * Past minutes from a venue's mark, index and premium 1m kline closes (by open time): the minutes
 * with both prices, ascending, checked and restated at `scale`; the premium where known.
 */
export function pastMinutesOf(sink: RowSink, scale: number | undefined, k: { mark: Map<number, string>; index: Map<number, string>; premium: Map<number, string> }): DerivativesInput[] {
  const out: DerivativesInput[] = [];
  for (const [time, markPrice] of [...k.mark].sort((x, y) => x[0] - y[0])) {
    const oraclePrice = k.index.get(time);
    if (oraclePrice === undefined) continue;
    const row = sink.pastMinute(time, { markPrice, oraclePrice, premium: k.premium.get(time) ?? null }, scale);
    if (row) out.push(row);
  }
  return out;
}
