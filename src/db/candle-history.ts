/**
 * The feature precompute's candle history: the text PostgreSQL aggregates a range of candles
 * into (`epoch_ms,open,high,low,close,volume` lines) read into arrays of doubles by offsets, with
 * no string per value; and the statement that reads it.
 */
import type { CandleHistory } from '../domain/bar-history';

export type { CandleHistory };

/**
 * The history of series $1 at timeframe $2 as one text of `epoch_ms,open,high,low,close,volume`
 * lines, oldest first: up to $4 bars before $3 and up to $5 bars from $3 on ($3 null: from the
 * first bar). No object per candle, and no float8 conversion in PostgreSQL: per-column float8
 * arrays made the slower read.
 */
export const HISTORY_SQL = `
SELECT string_agg(concat_ws(',', date_part('epoch', time) * 1000, open, high, low, close, volume), E'\\n' ORDER BY time) AS s
FROM (
  (SELECT time, open, high, low, close, volume FROM candles
   WHERE $3::timestamptz IS NOT NULL AND series_id = $1 AND timeframe = $2 AND time < $3 ORDER BY time DESC LIMIT $4)
  UNION ALL
  (SELECT time, open, high, low, close, volume FROM candles
   WHERE series_id = $1 AND timeframe = $2 AND ($3::timestamptz IS NULL OR time >= $3) ORDER BY time LIMIT $5)
) w`;


/** Where the line starting at `at` ends (its newline, or the end of the text). */
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl;
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Number(text.slice(start, end)) for PostgreSQL's text of a number. A plain decimal whose
 * digits fit an exact integer (below 2^53) with at most 22 decimals is that integer divided by
 * a power of ten, both exact, so the one rounding of the division gives the same double
 * (Clinger's fast path) without a string per value; anything else goes through Number().
 */
function numberIn(text: string, start: number, end: number): number {
  let i = start;
  const neg = text.charCodeAt(i) === 45;
  if (neg) i++;
  let mantissa = 0;
  let decimals = -1;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && decimals < 0) decimals = 0;
    else if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      if (decimals >= 0) decimals++;
    } else return Number(text.slice(start, end));
  }
  if (i === (neg ? start + 1 : start) || mantissa > Number.MAX_SAFE_INTEGER || decimals > 22) return Number(text.slice(start, end));
  const v = decimals > 0 ? mantissa / POW10[decimals] : mantissa;
  return neg ? -v : v;
}

/** The candles of a history text (null: none), oldest first. */
export function historyOf(text: string | null): CandleHistory {
  let n = 0;
  if (text !== null && text.length > 0) for (let at = -1; at < text.length; at = lineEnd(text, at + 1)) n++;
  const a = () => new Float64Array(n);
  const h: CandleHistory = { time: a(), open: a(), high: a(), low: a(), close: a(), volume: a() };
  if (text === null) return h;
  const columns = [h.time, h.open, h.high, h.low, h.close, h.volume];
  let at = 0;
  for (let row = 0; at < text.length; row++) {
    for (let c = 0; c < 6; c++) {
      const end = c < 5 ? text.indexOf(',', at) : lineEnd(text, at);
      columns[c][row] = numberIn(text, at, end);
      at = end + 1;
    }
  }
  return h;
}
