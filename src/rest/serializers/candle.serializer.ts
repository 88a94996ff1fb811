/** Candles over REST: the row, the trade flow `fields` appends, the page head, JSON and CSV. */
import { z } from 'zod';
import type { Candle, CandleRequest, JsonRows, TradeFlowField } from '../../domain/market';
import { CANDLE_TIMEFRAMES } from '../../domain/timeframe';
import { decimal, pageJsonBytes, pageSchema, restShape, timestamp } from './shape';

const six = decimal('6 decimals');

export const CANDLE = restShape<Candle>({
  time: { from: 'time', schema: timestamp },
  open: { from: 'open', schema: six },
  high: { from: 'high', schema: six },
  low: { from: 'low', schema: six },
  close: { from: 'close', schema: six },
  volume: { from: 'volume', schema: six },
});

/** The trade-flow values `fields` may append, by REST name. */
export const TRADE_FLOW: Record<TradeFlowField, { from: keyof Candle & string; schema: z.ZodType }> = {
  trades: { from: 'trades', schema: z.string().nullable().optional().meta({ description: 'fields=trades: number of trades (integer digits); null where the venue gave none.' }) },
  quote_volume: { from: 'quoteVolume', schema: z.string().nullable().optional().meta({ description: 'fields=quote_volume: volume in the quote asset, 6 decimals.' }) },
  taker_buy_volume: { from: 'takerBuyVolume', schema: z.string().nullable().optional().meta({ description: 'fields=taker_buy_volume: base volume bought by takers, 6 decimals.' }) },
  taker_buy_quote_volume: {
    from: 'takerBuyQuoteVolume',
    schema: z.string().nullable().optional().meta({ description: 'fields=taker_buy_quote_volume: quote volume bought by takers, 6 decimals.' }),
  },
};

const CANDLE_ROW_SCHEMA = CANDLE.schema.extend(Object.fromEntries(Object.entries(TRADE_FLOW).map(([name, f]) => [name, f.schema])));

export const CANDLE_PAGE_SCHEMA = pageSchema({ symbol: z.string(), exchange: z.string(), timeframe: z.enum(CANDLE_TIMEFRAMES) }, CANDLE_ROW_SCHEMA);

/** CSV columns and cells: the candle's, then the asked trade-flow values in order. */
export const candleCsvColumns = (q: CandleRequest): readonly string[] => (q.fields ? [...CANDLE.names, ...q.fields] : CANDLE.names);
export const candleCsvCells = (q: CandleRequest) => (r: Candle) =>
  q.fields ? [...CANDLE.csvCells(r), ...q.fields.map((f) => r[TRADE_FLOW[f].from] as string | null | undefined)] : CANDLE.csvCells(r);

/** A page whose rows are already JSON text (CandlesService.pageAsJson). */
export function candlePageJson(q: CandleRequest, p: JsonRows): Buffer {
  return pageJsonBytes({ symbol: q.symbol, exchange: q.exchange, timeframe: q.timeframe, count: p.count, next_start: p.nextStart }, p.json);
}
