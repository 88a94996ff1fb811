/**
 * The candle page reads' SQL and the rendering of their rows: the stored values come as
 * PostgreSQL's text (`textRows`) and JS renders them as the API serves them, because
 * PostgreSQL's to_char and round() per value cost more than the index scan itself
 * (bench/README.md).
 */
import { fixedPlaces } from '../domain/decimal';
import type { Candle } from '../domain/market';
import type { TextRow } from './database';
import { apiTimeOfEpoch, sqlEpochSeconds } from './sql';

const PAGE_RANGE = `timeframe = $2 AND time >= $3 AND time <= $4 ORDER BY time LIMIT $5`;

/**
 * The page read of one series (a REST request): $1 series id, $2 timeframe, $3 start, $4 end,
 * $5 rows; a range scan of the primary key. Values come as stored and are rendered in JS
 * (`candleOf`): PostgreSQL's to_char and round() per value cost more than the scan itself.
 */
export const PAGE_SQL = `SELECT ${sqlEpochSeconds('time')}, open, high, low, close, volume FROM candles WHERE series_id = $1 AND ${PAGE_RANGE}`;

/** The same for several series (a GraphQL batch): $1 series ids, one range scan each. */
export const PAGES_SQL = `SELECT s.id, ${sqlEpochSeconds('c.time')}, c.open, c.high, c.low, c.close, c.volume
FROM unnest($1::int[]) AS s(id)
CROSS JOIN LATERAL (SELECT time, open, high, low, close, volume FROM candles WHERE series_id = s.id AND ${PAGE_RANGE}) c`;

/** One of the candle values of a page row: PostgreSQL's text, served with 6 places. */
const six = (v: string | null) => fixedPlaces(v!, 6);

/** A candle from the text of a page row whose time is at index `at`. */
export function candleOf(r: TextRow, at: number): Candle {
  return {
    time: apiTimeOfEpoch(r[at]!),
    open: six(r[at + 1]),
    high: six(r[at + 2]),
    low: six(r[at + 3]),
    close: six(r[at + 4]),
    volume: six(r[at + 5]),
  };
}

/**
 * A page row (time first) as the JSON object text of its candle. The names are the domain's,
 * which REST shares; every value is PostgreSQL's text of a number, so nothing needs escaping.
 */
export function candleJson(r: TextRow): string {
  return `{"time":"${apiTimeOfEpoch(r[0]!)}","open":"${six(r[1])}","high":"${six(r[2])}","low":"${six(r[3])}","close":"${six(r[4])}","volume":"${six(r[5])}"}`;
}
