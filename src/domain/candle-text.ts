/**
 * A candle page row as the database gives it to the hot reads (`textRows`): the open time as
 * epoch seconds (float8 text) and the values as stored (NUMERIC's text), rendered here as the
 * API serves them. PostgreSQL's to_char and round() per value cost more than the index scan
 * itself (bench/README.md), so every reader of a candle page renders from this one layout: the
 * REST and GraphQL JSON writers (encoding/json-rows.ts), and the rows of CSV and dataframes.
 */
import { fixedPlaces } from './decimal';
import type { Candle, TextRow } from './market';
import { formatTimestamp } from './time';

/** Where a served value sits in a text row, and how it is served. */
export type TextValue =
  /** Epoch seconds, served as the API's time (`YYYY-MM-DDTHH:MM:SS+00:00`). */
  | { at: number; kind: 'time' }
  /** A decimal with `places` decimals; null stays null. */
  | { at: number; kind: 'decimal'; places: number }
  /** A whole number, served as its digits; null stays null. */
  | { at: number; kind: 'integer' };

/** The columns of a candle page row, by the domain's field: the candle, then its trade flow. */
export const CANDLE_TEXT: { readonly [F in keyof Required<Candle>]: TextValue } = {
  time: { at: 0, kind: 'time' },
  open: { at: 1, kind: 'decimal', places: 6 },
  high: { at: 2, kind: 'decimal', places: 6 },
  low: { at: 3, kind: 'decimal', places: 6 },
  close: { at: 4, kind: 'decimal', places: 6 },
  volume: { at: 5, kind: 'decimal', places: 6 },
  quoteVolume: { at: 6, kind: 'decimal', places: 6 },
  trades: { at: 7, kind: 'integer' },
  takerBuyVolume: { at: 8, kind: 'decimal', places: 6 },
  takerBuyQuoteVolume: { at: 9, kind: 'decimal', places: 6 },
};

/** Columns of a candle row without / with the trade flow. */
export const CANDLE_TEXT_COLUMNS = 6;
export const CANDLE_FLOW_TEXT_COLUMNS = 10;

/** The text of `sqlEpochSeconds` (float8 epoch seconds) as the API's time (whole seconds). */
export function apiTimeOfEpoch(text: string): string {
  return formatTimestamp(Math.floor(Number(text)) * 1000);
}

/** One value of a text row as served. */
export function servedText(row: TextRow, v: TextValue): string | null {
  const text = row[v.at];
  if (text === null || text === undefined) return null;
  if (v.kind === 'time') return apiTimeOfEpoch(text);
  return v.kind === 'decimal' ? fixedPlaces(text, v.places) : text;
}

const six = (v: string | null) => fixedPlaces(v!, 6);
const sixOrNull = (v: string | null | undefined) => (v === null || v === undefined ? null : fixedPlaces(v, 6));

/** The candle of a page row; with its trade flow when the read asked for it (`flow`). */
export function candleOf(r: TextRow, flow: boolean): Candle {
  const c: Candle = { time: apiTimeOfEpoch(r[0]!), open: six(r[1]), high: six(r[2]), low: six(r[3]), close: six(r[4]), volume: six(r[5]) };
  if (!flow) return c;
  c.trades = r[7] ?? null;
  c.quoteVolume = sixOrNull(r[6]);
  c.takerBuyVolume = sixOrNull(r[8]);
  c.takerBuyQuoteVolume = sixOrNull(r[9]);
  return c;
}
