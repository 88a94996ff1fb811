/** Multi-asset over REST: wide rows keyed by symbol, a symbol without a value left out of its row. */
import { z } from 'zod';
import type { MultiAssetRequest, MultiAssetRow } from '../../domain/market';
import { alignSeries, alignedPage, ascending, type AlignedValues } from '../../domain/multi-asset';
import { MAX_ROWS } from '../../domain/params/market-params';
import { formatTimestamp } from '../../domain/time';
import { CANDLE_TIMEFRAMES } from '../../domain/timeframe';
import { AsciiText } from '../../encoding/ascii-text';
import type { MultiAssetPlan } from '../../services/reads/multi-asset.service';
import type { Representation } from '../data-route';
import { wideRowSchema } from './feature.serializer';
import { pageJsonBytes, pageSchema } from './shape';

export const MULTI_ASSET_PAGE_SCHEMA = pageSchema(
  { symbols: z.array(z.string()), exchange: z.string(), timeframe: z.enum(CANDLE_TIMEFRAMES), field: z.string() },
  wideRowSchema('symbol'),
);

/**
 * The first `limit` aligned rows as JSON objects (`{"time":"…","BTC-USDT":"…"}`, values with the
 * source's places, in the request's symbol order), written as bytes into one buffer: a string
 * per row or value is garbage the collector copies. Symbols and values need no escaping
 * (validated symbols, decimal text). Also how many rows, and the next start.
 */
export function alignedJson(values: AlignedValues, limit: number): { count: number; json: Uint8Array; nextStart: string | null } {
  const list = values.list.map(ascending);
  const { places } = values;
  const keys = list.map((s) => Buffer.from(`,"${s.symbol}":"`, 'latin1'));
  const out = new AsciiText(1 << 20);
  let count = 0;
  let next = NaN;
  alignSeries(list, limit + 1, (t, at) => {
    if (count === limit) return void (next = t);
    out.ascii(count++ === 0 ? '{"time":"' : ',{"time":"');
    out.ascii(formatTimestamp(t * 1000));
    out.byte(34);
    for (let j = 0; j < list.length; j++) {
      if (at[j] < 0) continue;
      const s = list[j];
      out.copy(keys[j], 0, keys[j].length);
      out.decimal(s.text, s.from[at[j]], s.to[at[j]], places);
      out.byte(34);
    }
    out.byte(125);
  });
  return { count, json: out.view(), nextStart: Number.isNaN(next) ? null : formatTimestamp(next * 1000) };
}

export const multiAssetCsvColumns = (q: MultiAssetRequest) => ['time', ...q.symbols];

export const MULTI_ASSET_REPRESENTATION: Representation<MultiAssetPlan, AlignedValues, MultiAssetRow> = {
  json(q, values) {
    const p = alignedJson(values, MAX_ROWS);
    return pageJsonBytes({ symbols: q.symbols, exchange: q.exchange, timeframe: q.timeframe, field: q.field, count: p.count, next_start: p.nextStart }, p.json);
  },
  table(q, values) {
    const p = alignedPage(values, MAX_ROWS);
    return {
      columns: multiAssetCsvColumns(q),
      rows: p.data,
      cells: (r: MultiAssetRow) => {
        const bySymbol = new Map(r.values.map((v) => [v.symbol, v.value]));
        return [r.time, ...q.symbols.map((s) => bySymbol.get(s))];
      },
      // funding_rate has the funding rate's 8 places (multiAssetSource).
      scaleOf: () => (q.field === 'funding_rate' ? 8 : 6),
      nextStart: p.nextStart,
    };
  },
};
