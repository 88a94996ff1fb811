/**
 * Where the GraphQL shape of a domain object differs from the object itself (a list where the
 * domain has keys, or columns): the GraphQL edge's own serializers. Everything else is served
 * as the domain object (graphql/types implement the domain types).
 */
import { CANDLE_TEXT, candleOf, servedText } from '../domain/candle-text';
import type { Candle, Derivatives, FeatureRow, Page, TextRow } from '../domain/market';
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

/** A candle page as the candles field resolves it: the page's text rows, their trade flow or not. */
export interface CandlePageSource {
  count: number;
  nextStart: string | null;
  rows: TextRow[];
  flow: boolean;
}

export const candlePageSource = (p: Page<TextRow>, flow: boolean): CandlePageSource => ({ count: p.count, nextStart: p.nextStart, rows: p.data, flow });

/** The page's candles as objects. */
export const candlesOf = (p: CandlePageSource): Candle[] => p.rows.map((r) => candleOf(r, p.flow));

/** The page column by column, each list built when first read: index i of every list is one candle. */
export function candleColumnsOf(p: CandlePageSource): CandleColumnsType {
  const out = {} as Record<string, Array<string | null>>;
  for (const [field, value] of Object.entries(CANDLE_TEXT)) {
    let list: Array<string | null> | undefined;
    Object.defineProperty(out, field, { enumerable: true, get: () => (list ??= p.rows.map((r) => servedText(r, value))) });
  }
  return out as unknown as CandleColumnsType;
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
