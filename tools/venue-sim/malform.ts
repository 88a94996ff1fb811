/**
 * Broken candle rows, one kind after another, for proving a client's validation: a price that
 * is not a number, a high below the low, a negative volume, a number where the venue sends a
 * string, an open time 30 s off the minute, a missing field.
 */

export const MALFORM_KINDS = ['nonNumericPrice', 'highBelowLow', 'negativeVolume', 'numberNotString', 'timeOffMinute', 'missingField'] as const;
export type MalformKind = (typeof MALFORM_KINDS)[number];

const below = (price: unknown) => String(Number(price) * 0.99);
const negative = (volume: unknown) => `-${String(volume)}`;

/** Where a venue's candle object keeps each value (Bybit's stream names them in full). */
export interface CandleKeys {
  t: string;
  T: string;
  o: string;
  c: string;
  h: string;
  l: string;
  v: string;
}

const SHORT_KEYS: CandleKeys = { t: 't', T: 'T', o: 'o', c: 'c', h: 'h', l: 'l', v: 'v' };
export const BYBIT_STREAM_KEYS: CandleKeys = { t: 'start', T: 'end', o: 'open', c: 'close', h: 'high', l: 'low', v: 'volume' };

/** Breaks a candle object: keys t, T, o, c, h, l, v (Hyperliquid's, Binance's stream `k`) or the venue's names for them. */
export function malformObject(row: Record<string, unknown>, kind: MalformKind, keys: CandleKeys = SHORT_KEYS): void {
  switch (kind) {
    case 'nonNumericPrice':
      row[keys.o] = 'abc';
      return;
    case 'highBelowLow':
      row[keys.h] = below(row[keys.l]);
      return;
    case 'negativeVolume':
      row[keys.v] = negative(row[keys.v]);
      return;
    case 'numberNotString':
      row[keys.c] = Number(row[keys.c]);
      return;
    case 'timeOffMinute':
      row[keys.t] = Number(row[keys.t]) + 30_000;
      row[keys.T] = Number(row[keys.T]) + 30_000;
      return;
    case 'missingField':
      delete row[keys.c];
  }
}

/**
 * Breaks a kline array [t, o, h, l, c, v, ...]: Binance's (close time at 6, times as numbers) or,
 * with `textTimes`, Bybit's (only the start time, as a string).
 */
export function malformKline(row: unknown[], kind: MalformKind, textTimes = false): void {
  switch (kind) {
    case 'nonNumericPrice':
      row[1] = 'abc';
      return;
    case 'highBelowLow':
      row[2] = below(row[3]);
      return;
    case 'negativeVolume':
      row[5] = negative(row[5]);
      return;
    case 'numberNotString':
      row[4] = Number(row[4]);
      return;
    case 'timeOffMinute':
      if (textTimes) {
        row[0] = String(Number(row[0]) + 30_000);
        return;
      }
      row[0] = Number(row[0]) + 30_000;
      row[6] = Number(row[6]) + 30_000;
      return;
    case 'missingField':
      row.splice(4, 1);
  }
}
