/**
 * Broken candle rows, one kind after another, for proving a client's validation: a price that
 * is not a number, a high below the low, a negative volume, a number where the venue sends a
 * string, an open time 30 s off the minute, a missing field.
 */

export const MALFORM_KINDS = ['nonNumericPrice', 'highBelowLow', 'negativeVolume', 'numberNotString', 'timeOffMinute', 'missingField'] as const;
export type MalformKind = (typeof MALFORM_KINDS)[number];

const below = (price: unknown) => String(Number(price) * 0.99);
const negative = (volume: unknown) => `-${String(volume)}`;

/** Breaks a candle object with keys t, T, o, c, h, l, v (Hyperliquid's, Binance's stream `k`). */
export function malformObject(row: Record<string, unknown>, kind: MalformKind): void {
  switch (kind) {
    case 'nonNumericPrice':
      row.o = 'abc';
      return;
    case 'highBelowLow':
      row.h = below(row.l);
      return;
    case 'negativeVolume':
      row.v = negative(row.v);
      return;
    case 'numberNotString':
      row.c = Number(row.c);
      return;
    case 'timeOffMinute':
      row.t = Number(row.t) + 30_000;
      row.T = Number(row.T) + 30_000;
      return;
    case 'missingField':
      delete row.c;
  }
}

/** Breaks a Binance kline array: [t, o, h, l, c, v, T, ...]. */
export function malformKline(row: unknown[], kind: MalformKind): void {
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
      row[0] = Number(row[0]) + 30_000;
      row[6] = Number(row[6]) + 30_000;
      return;
    case 'missingField':
      row.splice(4, 1);
  }
}
