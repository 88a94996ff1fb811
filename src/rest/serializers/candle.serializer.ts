/**
 * Candles over REST: the row's snake_case names, the trade flow `fields` appends, the page head,
 * and the page (the database's text rows, domain/candle-text.ts) as JSON bytes and as a table.
 */
import { z } from 'zod';
import { CANDLE_TEXT, servedText } from '../../domain/candle-text';
import type { Candle, CandleRequest, Page, TextRow, TradeFlowField } from '../../domain/market';
import { CANDLE_TIMEFRAMES } from '../../domain/timeframe';
import { textRowsJson, type JsonMember } from '../../encoding/json-rows';
import type { CandlePlan } from '../../services/reads/candles.service';
import type { Representation } from '../data-route';
import { decimal, pageJsonBytes, pageSchema, timestamp } from './shape';

const six = decimal('6 decimals');

/** The candle's REST names, by domain field. */
const CANDLE_NAMES = { time: 'time', open: 'open', high: 'high', low: 'low', close: 'close', volume: 'volume' } as const;

/** The trade-flow values `fields` may append, by REST name: their domain field and schema. */
export const TRADE_FLOW: Record<TradeFlowField, { from: keyof Candle & keyof typeof CANDLE_TEXT; schema: z.ZodType }> = {
  trades: { from: 'trades', schema: z.string().nullable().optional().meta({ description: 'fields=trades: number of trades (integer digits); null where the venue gave none.' }) },
  quote_volume: { from: 'quoteVolume', schema: z.string().nullable().optional().meta({ description: 'fields=quote_volume: volume in the quote asset, 6 decimals.' }) },
  taker_buy_volume: { from: 'takerBuyVolume', schema: z.string().nullable().optional().meta({ description: 'fields=taker_buy_volume: base volume bought by takers, 6 decimals.' }) },
  taker_buy_quote_volume: {
    from: 'takerBuyQuoteVolume',
    schema: z.string().nullable().optional().meta({ description: 'fields=taker_buy_quote_volume: quote volume bought by takers, 6 decimals.' }),
  },
};

const CANDLE_ROW_SCHEMA = z
  .object({ time: timestamp, open: six, high: six, low: six, close: six, volume: six })
  .extend(Object.fromEntries(Object.entries(TRADE_FLOW).map(([name, f]) => [name, f.schema])));

export const CANDLE_PAGE_SCHEMA = pageSchema({ symbol: z.string(), exchange: z.string(), timeframe: z.enum(CANDLE_TIMEFRAMES) }, CANDLE_ROW_SCHEMA);

/** A row's members in order: the candle's, then the asked trade-flow values. */
function members(q: CandleRequest): JsonMember[] {
  const candle = Object.entries(CANDLE_NAMES).map(([field, name]) => ({ name, value: CANDLE_TEXT[field as keyof typeof CANDLE_NAMES] }));
  return [...candle, ...(q.fields ?? []).map((name) => ({ name, value: CANDLE_TEXT[TRADE_FLOW[name].from] }))];
}

/** The CSV columns: the candle's, then the asked trade-flow values in order. */
export const candleCsvColumns = (q: CandleRequest): readonly string[] => members(q).map((m) => m.name);

export const CANDLE_REPRESENTATION: Representation<CandlePlan, Page<TextRow>, TextRow> = {
  json: (q, p: Page<TextRow>) =>
    pageJsonBytes({ symbol: q.symbol, exchange: q.exchange, timeframe: q.timeframe, count: p.count, next_start: p.nextStart }, textRowsJson(p.data, p.count, members(q))),
  table(q, p) {
    const values = members(q).map((m) => m.value);
    return {
      columns: candleCsvColumns(q),
      rows: p.data,
      cells: (r: TextRow) => values.map((v) => servedText(r, v)),
      scaleOf: () => 6,
      integer: (column) => column === 'trades',
      nextStart: p.nextStart,
    };
  },
};
