/**
 * The features table's technical rows in binary COPY form: columns, types, and the rows of
 * computed values. Pure: the demo seed's worker thread encodes with it too.
 */
import { BinaryRows, type ColumnType } from '../encoding/binary-rows';
import { TECHNICAL_FEATURES } from '../domain/feature-catalogue';
import type { FeatureTimeframe } from '../domain/timeframe';
import { COPY_CHUNK_BYTES } from './bulk-upsert';

export const FEATURE_COLUMNS = ['series_id', 'timeframe', 'time', ...TECHNICAL_FEATURES];
export const FEATURE_TYPES: readonly ColumnType[] = ['int4', 'text', 'timestamptz', ...TECHNICAL_FEATURES.map((): ColumnType => 'numeric')];

/**
 * The rows for times[i], i >= firstIndex, in chunks of about COPY_CHUNK_BYTES: 6 decimals, half
 * away from zero on the double's exact value; NULL for a value that is null or not finite.
 */
export function* technicalCopyChunks(
  seriesId: number,
  timeframe: FeatureTimeframe,
  times: ArrayLike<number>,
  values: Record<string, ArrayLike<number | null>>,
  firstIndex: number,
): Generator<Buffer> {
  const columns = TECHNICAL_FEATURES.map((f) => values[f]);
  const out = new BinaryRows(COPY_CHUNK_BYTES + 4096);
  for (let i = firstIndex; i < times.length; i++) {
    out.row(FEATURE_COLUMNS.length);
    out.int4(seriesId);
    out.ascii(timeframe);
    out.timestamptz(times[i]);
    for (const col of columns) out.fixed(col[i], 6);
    if (out.length >= COPY_CHUNK_BYTES) yield out.take();
  }
  if (out.length > 0) yield out.take();
}
