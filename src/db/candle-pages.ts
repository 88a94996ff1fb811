/**
 * The candle page reads' SQL. Rows come as PostgreSQL's text (`textRows`) in the layout of
 * domain/candle-text.ts, which renders them as served: PostgreSQL's to_char and round() per
 * value cost more than the index scan itself (bench/README.md). Reads that ask for the trade
 * flow have statements of their own, so the others read exactly what they did.
 */
import { CANDLE_FLOW_TEXT_COLUMNS, CANDLE_TEXT_COLUMNS } from '../domain/candle-text';
import { sqlEpochSeconds } from './sql';

const PAGE_RANGE = `timeframe = $2 AND time >= $3 AND time <= $4 ORDER BY time LIMIT $5`;
const CANDLE = 'open, high, low, close, volume';
/** The trade flow, in CANDLE_TEXT's order after the candle. */
const FLOW = 'quote_volume, trades, taker_buy_volume, taker_buy_quote_volume';

/** The page read of one series (a REST request): $1 series id, $2 timeframe, $3 start, $4 end, $5 rows; a range scan of the primary key. */
export const PAGE_SQL = `SELECT ${sqlEpochSeconds('time')}, ${CANDLE} FROM candles WHERE series_id = $1 AND ${PAGE_RANGE}`;
export const FLOW_PAGE_SQL = `SELECT ${sqlEpochSeconds('time')}, ${CANDLE}, ${FLOW} FROM candles WHERE series_id = $1 AND ${PAGE_RANGE}`;

/** The same for several series (a GraphQL batch): $1 series ids, one range scan each; the series id last. */
export const PAGES_SQL = `SELECT ${sqlEpochSeconds('c.time')}, ${CANDLE.replace(/(\w+)/g, 'c.$1')}, s.id
FROM unnest($1::int[]) AS s(id)
CROSS JOIN LATERAL (SELECT time, ${CANDLE} FROM candles WHERE series_id = s.id AND ${PAGE_RANGE}) c`;
export const FLOW_PAGES_SQL = `SELECT ${sqlEpochSeconds('c.time')}, ${`${CANDLE}, ${FLOW}`.replace(/(\w+)/g, 'c.$1')}, s.id
FROM unnest($1::int[]) AS s(id)
CROSS JOIN LATERAL (SELECT time, ${CANDLE}, ${FLOW} FROM candles WHERE series_id = s.id AND ${PAGE_RANGE}) c`;

/** Result columns of a page read, with or without the trade flow. */
export const pageColumns = (flow: boolean) => (flow ? CANDLE_FLOW_TEXT_COLUMNS : CANDLE_TEXT_COLUMNS);
