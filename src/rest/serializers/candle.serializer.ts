/** Candles over REST: the row, the page head, JSON and CSV. */
import { z } from 'zod';
import type { Candle, CandleRequest, Page } from '../../domain/market';
import { CANDLE_TIMEFRAMES } from '../../domain/timeframe';
import { decimal, pageJson, pageSchema, restShape, timestamp } from './shape';

const six = decimal('6 decimals');

export const CANDLE = restShape<Candle>({
  time: { from: 'time', schema: timestamp },
  open: { from: 'open', schema: six },
  high: { from: 'high', schema: six },
  low: { from: 'low', schema: six },
  close: { from: 'close', schema: six },
  volume: { from: 'volume', schema: six },
});

export const CANDLE_PAGE_SCHEMA = pageSchema({ symbol: z.string(), exchange: z.string(), timeframe: z.enum(CANDLE_TIMEFRAMES) }, CANDLE.schema);

/** A page whose rows are already JSON object texts (CandlesService.pageAsJson). */
export function candlePageJson(q: CandleRequest, p: Page<string>): string {
  return pageJson({ symbol: q.symbol, exchange: q.exchange, timeframe: q.timeframe, count: p.count, next_start: p.nextStart }, p.data);
}
