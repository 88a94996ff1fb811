/**
 * Where the one field of a multi-asset read comes from, and the venue and timeframe rules on
 * it: candle fields at any timeframe; funding_rate and the funding/premium features on the
 * perpetual venue at 1h only (they are hourly); the perpetual's context (open_interest,
 * mark_price) on the perpetual venue at any timeframe; technical features at their timeframe.
 */
import { fixedPlaces } from './decimal';
import { AppError } from './errors';
import { pageOf, type MultiAssetRow, type Page } from './market';
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
    if (!exchanges.isPerpetual(exchange)) {
      throw new AppError('INVALID_EXCHANGE', `${what} exists on ${exchanges.perpetualWhere()} only; use ${exchanges.perpetualHint()}`, { parameter: 'exchange' });
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

/**
 * One series' values of a multi-asset read: times (Unix seconds, ascending) and the stored
 * values' text (PostgreSQL's, a NUMERIC's digits), value i being `text` from `from[i]` to `to[i]`.
 */
export interface SeriesValues {
  times: Float64Array;
  text: string;
  from: Uint32Array;
  to: Uint32Array;
}

export type Aligned = ReadonlyArray<{ symbol: string } & SeriesValues>;

/** A multi-asset page as read: each asked series' first values (ascending, in the request's symbol order) and the places served. */
export interface AlignedValues {
  list: Aligned;
  places: number;
}

const COMMA = 44;
const DOT = 46;

/**
 * A series from two comma-separated texts: the epoch seconds of its values (PostgreSQL's
 * float8 text) and the values, in the same order.
 */
export function seriesOfTexts(times: string, values: string): SeriesValues {
  const n = count(values, COMMA) + 1;
  const out = { times: new Float64Array(n), text: values, from: new Uint32Array(n), to: new Uint32Array(n) };
  let at = 0;
  for (let i = 0; i < n; i++) {
    const end = times.indexOf(',', at);
    const stop = end < 0 ? times.length : end;
    out.times[i] = epochSeconds(times, at, stop);
    at = stop + 1;
  }
  at = 0;
  for (let i = 0; i < n; i++) {
    const end = values.indexOf(',', at);
    out.from[i] = at;
    out.to[i] = at = end < 0 ? values.length : end;
    at++;
  }
  if (count(times, COMMA) + 1 !== n) throw new Error(`multi-asset: ${count(times, COMMA) + 1} times for ${n} values`);
  return out;
}

function count(text: string, code: number): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === code) n++;
  return n;
}

/** Whole seconds (floor) of the float8 text text[from, to): digits read in place, other forms through Number. */
function epochSeconds(text: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT && i > from && digitsOnly(text, i + 1, to)) return v;
    if (c < 48 || c > 57) return Math.floor(Number(text.slice(from, to)));
    v = v * 10 + (c - 48);
  }
  return to > from ? v : NaN;
}

function digitsOnly(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

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

/** The rows of `alignSeries` as the domain's rows, values with `places` decimals in the order of `series`. */
export function alignedRows(series: Aligned, places: number, limit: number): MultiAssetRow[] {
  const list = series.map(ascending);
  return alignSeries(list, limit, (t, at) => {
    const values = [];
    for (let j = 0; j < list.length; j++) {
      const s = list[j];
      if (at[j] >= 0) values.push({ symbol: s.symbol, value: fixedPlaces(s.text.slice(s.from[at[j]], s.to[at[j]]), places) });
    }
    return { time: formatTimestamp(t * 1000), values };
  });
}

/** The first `limit` rows of `alignedRows` as a page. */
export function alignedPage(values: AlignedValues, limit: number): Page<MultiAssetRow> {
  return pageOf(alignedRows(values.list, values.places, limit + 1), limit, (r) => r.time);
}

/** The series itself when ascending by time, else a sorted copy. */
export function ascending<S extends SeriesValues>(s: S): S {
  const { times } = s;
  let sorted = true;
  for (let i = 1; i < times.length && sorted; i++) sorted = times[i - 1] < times[i];
  if (sorted) return s;
  const order = Array.from(times.keys()).sort((a, b) => times[a] - times[b]);
  const pick = (a: ArrayLike<number>) => Uint32Array.from(order, (i) => a[i]);
  return { ...s, times: Float64Array.from(order, (i) => times[i]), from: pick(s.from), to: pick(s.to) };
}
