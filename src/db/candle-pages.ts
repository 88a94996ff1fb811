/**
 * The candle page reads' SQL and the rendering of their rows: the stored values come as
 * PostgreSQL's text (`textRows`) and JS renders them as the API serves them, because
 * PostgreSQL's to_char and round() per value cost more than the index scan itself
 * (bench/README.md). Reads that ask for the trade flow have statements of their own, so the
 * others read and render exactly what they did.
 */
import { AsciiText } from '../encoding/ascii-text';
import { fixedPlaces } from '../domain/decimal';
import type { Candle, TradeFlowField } from '../domain/market';
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

/** The same with the trade flow after the candle: quote_volume, trades, taker_buy_volume, taker_buy_quote_volume. */
const FLOW = 'quote_volume, trades, taker_buy_volume, taker_buy_quote_volume';
export const FLOW_PAGE_SQL = `SELECT ${sqlEpochSeconds('time')}, open, high, low, close, volume, ${FLOW} FROM candles WHERE series_id = $1 AND ${PAGE_RANGE}`;
export const FLOW_PAGES_SQL = `SELECT s.id, ${sqlEpochSeconds('c.time')}, c.open, c.high, c.low, c.close, c.volume, c.quote_volume, c.trades, c.taker_buy_volume, c.taker_buy_quote_volume
FROM unnest($1::int[]) AS s(id)
CROSS JOIN LATERAL (SELECT time, open, high, low, close, volume, ${FLOW} FROM candles WHERE series_id = s.id AND ${PAGE_RANGE}) c`;

/** One of the candle values of a page row: PostgreSQL's text, served with 6 places. */
const six = (v: string | null) => fixedPlaces(v!, 6);
/** A trade-flow volume: 6 places, or null where none was given. */
const sixOrNull = (v: string | null) => (v === null ? null : fixedPlaces(v, 6));

/** Where each trade-flow value sits in a flow row (counted from its time), and how it is served. */
const FLOW_AT: Record<TradeFlowField, { at: number; render: (v: string | null) => string | null }> = {
  quote_volume: { at: 6, render: sixOrNull },
  trades: { at: 7, render: (v) => v },
  taker_buy_volume: { at: 8, render: sixOrNull },
  taker_buy_quote_volume: { at: 9, render: sixOrNull },
};

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

/** A candle with its trade flow from a flow row whose time is at index `at`. */
export function candleWithFlowOf(r: TextRow, at: number): Candle {
  const flow = (f: TradeFlowField) => FLOW_AT[f].render(r[at + FLOW_AT[f].at]);
  return {
    ...candleOf(r, at),
    trades: flow('trades'),
    quoteVolume: flow('quote_volume'),
    takerBuyVolume: flow('taker_buy_volume'),
    takerBuyQuoteVolume: flow('taker_buy_quote_volume'),
  };
}

/**
 * A page row (time first) as the JSON object text of its candle. The names are the domain's,
 * which REST shares; every value is PostgreSQL's text of a number, so nothing needs escaping.
 */
export function candleJson(r: TextRow): string {
  return `{"time":"${apiTimeOfEpoch(r[0]!)}","open":"${six(r[1])}","high":"${six(r[2])}","low":"${six(r[3])}","close":"${six(r[4])}","volume":"${six(r[5])}"}`;
}

/** The constant text around a candle's values in its JSON object, as bytes. */
const CANDLE_KEYS = ['{"time":"', '","open":"', '","high":"', '","low":"', '","close":"', '","volume":"', '"}'].map((k) => Buffer.from(k, 'latin1'));

/**
 * The first `count` page rows (time first) as the JSON object texts of their candles (as
 * `candleJson` writes them), separated by commas, as bytes in one buffer: a string per row or
 * value, or of the whole page, is garbage the collector copies (bench/README.md).
 */
export function candlesJson(rows: readonly TextRow[], count: number): Buffer {
  const out = new AsciiText(count * 160 + 64);
  for (let i = 0; i < count; i++) {
    const r = rows[i];
    if (i > 0) out.byte(44); // ,
    out.copy(CANDLE_KEYS[0], 0, CANDLE_KEYS[0].length);
    out.ascii(apiTimeOfEpoch(r[0]!));
    for (let k = 1; k <= 5; k++) {
      const v = r[k]!;
      out.copy(CANDLE_KEYS[k], 0, CANDLE_KEYS[k].length);
      out.decimal(v, 0, v.length, 6);
    }
    out.copy(CANDLE_KEYS[6], 0, CANDLE_KEYS[6].length);
  }
  return out.view();
}

/** A flow row (time first) as the JSON object text of its candle and the asked trade-flow fields, in order. */
export function candleFlowJson(r: TextRow, fields: readonly TradeFlowField[]): string {
  let out = candleJson(r).slice(0, -1);
  for (const f of fields) {
    const v = FLOW_AT[f].render(r[FLOW_AT[f].at]);
    out += v === null ? `,"${f}":null` : `,"${f}":"${v}"`;
  }
  return out + '}';
}
