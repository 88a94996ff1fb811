/**
 * Where the one field of a multi-asset read comes from, and the venue and timeframe rules on
 * it: candle fields at any timeframe; funding_rate and the funding/premium features on the
 * perpetual venue at 1h only (they are hourly); the perpetual's context (open_interest,
 * mark_price) on the perpetual venue at any timeframe; technical features at their timeframe.
 */
import { AppError } from './errors';
import type { MultiAssetRow } from './market';
import { formatTimestamp } from './time';
import { FUNDING_TIMEFRAME_FEATURES } from './feature-catalogue';
import { CANDLE_FIELDS, DERIVATIVES_FIELDS } from './params/market-params';
import type { CandleTimeframe, FeatureTimeframe } from './timeframe';
import type { Exchanges } from './exchanges';

export interface MultiAssetSource {
  /** The stored series the values live in. */
  kind: 'candles' | 'funding' | 'features' | 'derivatives';
  /** The stored column: a candle field, `rate`, a context field or a feature name (never raw user input). */
  column: string;
  /** Decimal places served. */
  places: number;
  /** The stored timeframe to read (null for funding rates, which have none). */
  timeframe: FeatureTimeframe | null;
}

export function multiAssetSource(field: string, exchange: string, timeframe: CandleTimeframe, exchanges: Exchanges): MultiAssetSource {
  if ((CANDLE_FIELDS as readonly string[]).includes(field)) return { kind: 'candles', column: field, places: 6, timeframe };
  const hourlyOnly = (what: string) => {
    if (exchange !== exchanges.perp) {
      throw new AppError('INVALID_EXCHANGE', `${what} exists on the perpetual venue only; use exchange=${exchanges.perp}`, { parameter: 'exchange' });
    }
    if (timeframe !== '1h') {
      throw new AppError('INVALID_PARAMETER', `field ${field} is hourly: use timeframe=1h`, { parameter: 'field' });
    }
  };
  if ((DERIVATIVES_FIELDS as readonly string[]).includes(field)) {
    exchanges.requirePerp(exchange, `${field} (a perpetual's context)`);
    return { kind: 'derivatives', column: field, places: 6, timeframe };
  }
  if (field === 'funding_rate') {
    hourlyOnly('funding');
    return { kind: 'funding', column: 'rate', places: 8, timeframe: null };
  }
  if (FUNDING_TIMEFRAME_FEATURES.has(field)) {
    hourlyOnly(`feature ${field}`);
    return { kind: 'features', column: field, places: 6, timeframe: 'funding' };
  }
  return { kind: 'features', column: field, places: 6, timeframe };
}

/** One series' values of a multi-asset read: times (Unix seconds, ascending) and the values served at them. */
export interface SeriesValues {
  times: Float64Array;
  values: string[];
}

export type Aligned = ReadonlyArray<{ symbol: string } & SeriesValues>;

/**
 * A row per each of the first `limit` distinct times of any of the series, made by `row` from
 * the time (Unix seconds) and, per series, the index of its value at that time (-1: none): a
 * merge of the series, each ascending by time (one that is not is sorted first).
 */
export function alignSeries<R>(series: Aligned, limit: number, row: (time: number, at: Int32Array) => R): R[] {
  const list = series.map(ascending);
  const next = new Int32Array(list.length);
  const at = new Int32Array(list.length);
  const rows: R[] = [];
  while (rows.length < limit) {
    let t = Infinity;
    for (let j = 0; j < list.length; j++) {
      const x = list[j].times[next[j]];
      if (x < t) t = x;
    }
    if (t === Infinity) break;
    for (let j = 0; j < list.length; j++) at[j] = list[j].times[next[j]] === t ? next[j]++ : -1;
    rows.push(row(t, at));
  }
  return rows;
}

/** The rows of `alignSeries` as the domain's rows, values in the order of `series`. */
export function alignedRows(series: Aligned, limit: number): MultiAssetRow[] {
  const list = series.map(ascending);
  return alignSeries(list, limit, (t, at) => {
    const values = [];
    for (let j = 0; j < list.length; j++) if (at[j] >= 0) values.push({ symbol: list[j].symbol, value: list[j].values[at[j]] });
    return { time: formatTimestamp(t * 1000), values };
  });
}

/**
 * The rows of `alignSeries` as the JSON object text REST serves (`{"time":"…","BTCUSDT":"…"}`,
 * values in the order of `series`), and the time of the last row. Symbols and values need no
 * escaping (validated symbols, decimal text).
 */
export function alignedJson(series: Aligned, limit: number): { rows: string[]; lastTime: string | null } {
  const list = series.map(ascending);
  const keys = list.map((s) => `,"${s.symbol}":"`);
  let last = NaN;
  const rows = alignSeries(list, limit, (t, at) => {
    last = t;
    let out = `{"time":"${formatTimestamp(t * 1000)}"`;
    for (let j = 0; j < list.length; j++) if (at[j] >= 0) out += `${keys[j]}${list[j].values[at[j]]}"`;
    return `${out}}`;
  });
  return { rows, lastTime: rows.length ? formatTimestamp(last * 1000) : null };
}

/** The series itself when ascending by time, else a sorted copy. */
function ascending<S extends SeriesValues>(s: S): S {
  const { times } = s;
  let sorted = true;
  for (let i = 1; i < times.length && sorted; i++) sorted = times[i - 1] < times[i];
  if (sorted) return s;
  const order = Array.from(times.keys()).sort((a, b) => times[a] - times[b]);
  return { ...s, times: Float64Array.from(order, (i) => times[i]), values: order.map((i) => s.values[i]) };
}
