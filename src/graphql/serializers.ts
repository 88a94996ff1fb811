/**
 * Where the GraphQL shape of a domain object differs from the object itself (a list where the
 * domain has keys, or columns): the GraphQL edge's own serializers. Everything else is served
 * as the domain object (graphql/types implement the domain types).
 */
import type { Candle, Derivatives, FeatureRow, Page } from '../domain/market';
import { GRAPHQL_FIELDS } from './fields';
import type { DerivativesColumnsType } from './types/derivatives.types';
import type { CandleColumnsType, FeatureValuesType } from './types/market.types';

/**
 * A page with its `columns`, built only when selected, and once: compiled execution reads the
 * property again for every field below it.
 */
export function withColumns<Row, C>(p: Page<Row>, build: (rows: readonly Row[]) => C): Page<Row> & { columns: C } {
  let columns: C | undefined;
  return {
    ...p,
    get columns() {
      return (columns ??= build(p.data));
    },
  };
}

/** One field of every row, as a list; built when first read, once. */
function lazyColumns<Row, C extends object>(rows: readonly Row[], names: ReadonlyArray<keyof C & keyof Row>): C {
  const out = {} as C;
  for (const name of names) {
    let list: unknown[] | undefined;
    Object.defineProperty(out, name, { enumerable: true, get: () => (list ??= rows.map((r) => r[name] ?? null)) });
  }
  return out;
}

const FLOW = GRAPHQL_FIELDS.candles.tradeFlow;

/** A page of candles column by column: index i of every list is one candle (the trade flow's lists built only when asked). */
export function candleColumns(rows: ReadonlyArray<Candle>): CandleColumnsType {
  const n = rows.length;
  const c = lazyColumns<Candle, CandleColumnsType>(rows, FLOW);
  c.time = new Array(n);
  c.open = new Array(n);
  c.high = new Array(n);
  c.low = new Array(n);
  c.close = new Array(n);
  c.volume = new Array(n);
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

/** A page of context rows column by column, each list built when first read. */
export function derivativesColumns(rows: ReadonlyArray<Derivatives>): DerivativesColumnsType {
  return lazyColumns<Derivatives, DerivativesColumnsType>(rows, [
    'time',
    'openInterest',
    'openInterestOpen',
    'openInterestHigh',
    'openInterestLow',
    'openInterestValue',
    'markPrice',
    'oraclePrice',
    'midPrice',
    'predictedFundingRate',
    'venuePremium',
  ]);
}

/** A wide feature row as a list of named values, in the requested order. */
export function featureValues(names: readonly string[], r: FeatureRow): FeatureValuesType {
  return { time: r.time, values: names.map((name) => ({ name, value: r[name] ?? null })) };
}
