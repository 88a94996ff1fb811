/** Multi-asset over REST: wide rows keyed by symbol, a symbol without a value left out of its row. */
import { z } from 'zod';
import type { JsonRows, MultiAssetRequest, MultiAssetRow } from '../../domain/market';
import { CANDLE_TIMEFRAMES } from '../../domain/timeframe';
import { wideRowSchema } from './feature.serializer';
import { pageJsonBytes, pageSchema } from './shape';

export const MULTI_ASSET_PAGE_SCHEMA = pageSchema(
  { symbols: z.array(z.string()), exchange: z.string(), timeframe: z.enum(CANDLE_TIMEFRAMES), field: z.string() },
  wideRowSchema('symbol'),
);

/** The page with its rows already JSON text (domain/multi-asset.ts `alignedJson`). */
export function multiAssetPageJson(q: MultiAssetRequest, p: JsonRows): Buffer {
  return pageJsonBytes({ symbols: q.symbols, exchange: q.exchange, timeframe: q.timeframe, field: q.field, count: p.count, next_start: p.nextStart }, p.json);
}

export const multiAssetCsvColumns = (q: MultiAssetRequest) => ['time', ...q.symbols];

export const multiAssetCsvCells = (q: MultiAssetRequest) => (r: MultiAssetRow) => {
  const bySymbol = new Map(r.values.map((v) => [v.symbol, v.value]));
  return [r.time, ...q.symbols.map((s) => bySymbol.get(s))];
};
