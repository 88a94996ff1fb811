/**
 * Where the GraphQL shape of a domain object differs from the object itself (a list where the
 * domain has keys, or columns): the GraphQL edge's own serializers. Everything else is served
 * as the domain object (graphql/types implement the domain types).
 */
import type { Candle, FeatureRow } from '../domain/market';
import type { CandleColumnsType, FeatureValuesType } from './types/market.types';

/** A page of candles column by column: index i of every list is one candle. */
export function candleColumns(rows: ReadonlyArray<Candle>): CandleColumnsType {
  const n = rows.length;
  const c: CandleColumnsType = { time: new Array(n), open: new Array(n), high: new Array(n), low: new Array(n), close: new Array(n), volume: new Array(n) };
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    c.time[i] = r.time;
    c.open[i] = r.open;
    c.high[i] = r.high;
    c.low[i] = r.low;
    c.close[i] = r.close;
    c.volume[i] = r.volume;
  }
  return c;
}

/** A wide feature row as a list of named values, in the requested order. */
export function featureValues(names: readonly string[], r: FeatureRow): FeatureValuesType {
  return { time: r.time, values: names.map((name) => ({ name, value: r[name] ?? null })) };
}
