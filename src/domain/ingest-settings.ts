/**
 * The ingestion settings users write (INGEST_SYMBOLS, INGEST_SINCE / --since, INGEST_SYMBOL_MAP),
 * parsed once, and the rule that maps a symbol to each venue's instrument name. Pure.
 */
import { SYMBOL } from './params/market-params';
import { parseValue } from './params/param';
import { parseDuration, parseTimestamp } from './time';
import { FUNDING_INTERVAL_MS } from './timeframe';

/** A venue's instrument for a symbol, and its contract multiplier (1000PEPEUSDT: 1,000 PEPE). */
export interface VenueInstrument {
  instrument: string;
  /** Prices are divided by it, volumes and open interest multiplied: a power of ten. */
  scale: number;
}

/** Per symbol, the instruments that break the rule, by venue adapter id. */
export type SymbolMap = Record<string, Partial<Record<string, VenueInstrument>>>;

/** The scales of a venue's mapped instruments (only those not 1). */
export function scalesOf(map: SymbolMap, venue: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const venues of Object.values(map)) {
    const v = venues[venue];
    if (v && v.scale !== 1) out.set(v.instrument, v.scale);
  }
  return out;
}

/** A comma-separated list of BASE-QUOTE symbols, upper-cased and without duplicates. */
export function parseSymbolList(text: string): string[] {
  const symbols = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (symbols.length === 0) throw new Error('must list at least one symbol, e.g. BTC-USDT,ETH-USDT');
  return [...new Set(symbols.map((s) => symbolOf(s)))];
}

function symbolOf(text: string): string {
  try {
    return parseValue(SYMBOL, text);
  } catch {
    throw new Error(`"${text}" is not a symbol such as BTC-USDT`);
  }
}

/**
 * The start of a backfill: a duration back from `nowMs` ("30d", "12h"), an ISO 8601 time or
 * Unix milliseconds. A bare number of 1-12 digits would be ambiguous (seconds of a duration or
 * milliseconds of a time): a time needs 13 digits or more.
 */
export function parseSince(text: string, nowMs: number): number {
  const t = text.trim();
  if (/^\d{13,}$/.test(t) || !/^\d+(ms|s|m|h|d)?$/.test(t)) {
    const at = parseTimestamp(t);
    if (at === null) throw new Error(`"${text}" is neither a duration (30d, 12h) nor an ISO 8601 or Unix-millisecond time`);
    return at;
  }
  return nowMs - parseDuration(t)!;
}

/**
 * JSON such as {"PEPE-USDT": {"hyperliquid": "kPEPE"}}: the exceptions to the mapping rule; an
 * exception may carry a contract multiplier, {"instrument": "1000PEPEUSDT", "scale": 1000}.
 */
export function parseSymbolMap(text: string): SymbolMap {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('must be JSON such as {"PEPE-USDT":{"hyperliquid":"kPEPE"}}');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('must be a JSON object keyed by symbol');
  const out: SymbolMap = {};
  for (const [symbol, venues] of Object.entries(raw)) {
    if (typeof venues !== 'object' || venues === null || Array.isArray(venues)) {
      throw new Error(`${symbol}: must map venue names to instrument names`);
    }
    const names: Record<string, VenueInstrument> = {};
    for (const [venue, value] of Object.entries(venues)) {
      const { instrument, scale } = typeof value === 'string' ? { instrument: value, scale: 1 } : ((value ?? {}) as { instrument?: unknown; scale?: unknown });
      if (typeof instrument !== 'string' || !/^[A-Za-z0-9@:_./-]{1,40}$/.test(instrument)) throw new Error(`${symbol}.${venue}: must be an instrument name or {"instrument", "scale"}`);
      if (typeof scale !== 'number' || !Number.isInteger(Math.log10(scale)) || scale < 1 || scale > 1e9) {
        throw new Error(`${symbol}.${venue}.scale: must be a power of ten from 1 to 1000000000`);
      }
      names[venue] = { instrument, scale };
    }
    out[symbolOf(symbol)] = names;
  }
  return out;
}

/** Split BTC-USDT into its base and quote. */
export function baseQuote(symbol: string): { base: string; quote: string } {
  const [base, quote] = symbol.split('-');
  return { base, quote };
}

/**
 * A venue's instrument for a symbol: INGEST_SYMBOL_MAP's exception for that venue, else the
 * venue's own rule (Binance and Bybit name the pair, BTCUSDT; Hyperliquid the coin).
 */
export function instrumentOf(map: SymbolMap, venue: string, symbol: string, rule: 'pair' | 'base'): string {
  const { base, quote } = baseQuote(symbol);
  return map[symbol]?.[venue]?.instrument ?? (rule === 'pair' ? `${base}${quote}` : base);
}

/** Venue times within this of a period boundary are aligned to it; farther off, rejected. */
export const ALIGN_TOLERANCE_MS = 5_000;

/** `ms` moved onto the nearest multiple of `periodMs` when within ALIGN_TOLERANCE_MS; else null. */
export function alignVenueTime(ms: number, periodMs: number): number | null {
  const aligned = Math.round(ms / periodMs) * periodMs;
  return Math.abs(ms - aligned) <= ALIGN_TOLERANCE_MS ? aligned : null;
}

/**
 * The hour a venue's funding settlement belongs to: floor(t + ALIGN_TOLERANCE_MS). A settlement
 * stamped late (seconds, or minutes when the venue lags) is still its hour's rate; one stamped
 * a moment before the hour is the coming hour's.
 */
export function fundingHourOf(ms: number): number {
  return Math.floor((ms + ALIGN_TOLERANCE_MS) / FUNDING_INTERVAL_MS) * FUNDING_INTERVAL_MS;
}
