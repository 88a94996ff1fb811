/**
 * Rendering values exactly as the API serves them (timestamps as `YYYY-MM-DDTHH:MM:SS+00:00`,
 * decimals rounded half away from zero to fixed places), so no row of a hot read passes
 * through an ORM object or a binary float: SQL fragments that make PostgreSQL print them, and
 * for the hottest reads (the candle pages) the conversion of PostgreSQL's own text in JS.
 */
import { formatTimestamp } from '../domain/time';

/** A timestamptz column as the API's time text. */
export const sqlTime = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"')`;

/** A numeric column with exactly `places` decimals. */
export const sqlDecimal = (col: string, places: number) => `round(${col}, ${places})::text`;

/** A float expression with exactly `places` decimals (through numeric: no float formatting). */
export const sqlFloat = (col: string, places: number) => `round(${col}::numeric, ${places})::text`;

/**
 * Seconds since the epoch of a timestamptz, as float8 (`date_part`, not `extract`, which is
 * NUMERIC and slower): the time of a `textRows` read, whatever the session's TimeZone and
 * DateStyle. Converted by `apiTimeOfEpoch`.
 */
export const sqlEpochSeconds = (col: string) => `date_part('epoch', ${col})`;

/** The text of `sqlEpochSeconds` as the API's time (seconds precision). */
export function apiTimeOfEpoch(text: string): string {
  return formatTimestamp(Math.floor(Number(text)) * 1000);
}

/** Milliseconds since the epoch of a timestamptz, as int8 (a JS number). */
export const sqlEpochMs = (col: string) => `(extract(epoch FROM ${col}) * 1000)::int8`;

/** Rows that carry the series they belong to. */
export type WithSeries<T> = T & { series_id: number };

/**
 * Rows of a multi-series read, by series. Order within a series is kept (the LATERAL
 * subquery's ORDER BY; a nested loop keeps it); rows of different series may come in any
 * order. Rows keep their series_id (no per-row copy on the hot path).
 */
export function groupBySeries<T>(rows: Array<WithSeries<T>>): Map<number, T[]> {
  const out = new Map<number, T[]>();
  let lastId = -1;
  let list: T[] = [];
  for (const row of rows) {
    if (row.series_id !== lastId) {
      lastId = row.series_id;
      list = out.get(lastId) ?? [];
      out.set(lastId, list);
    }
    list.push(row);
  }
  return out;
}
