/**
 * `format`: the representation of a data page, a REST matter (GraphQL has its own). json (the
 * default), csv, or the dataframe formats parquet and arrow (dataframe.writer.ts); anything
 * else is INVALID_PARAMETER. It is checked before the read's own parameters.
 */
import { z } from 'zod';
import { param, parseParam, type RawParams } from '../domain/params/param';

const FORMATS = ['json', 'csv', 'parquet', 'arrow'] as const;

export type Format = (typeof FORMATS)[number];

/** The formats that send a typed table rather than text. */
export type DataframeFormat = Extract<Format, 'parquet' | 'arrow'>;

export const FORMAT = param('format', {
  schema: z.enum(FORMATS),
  description:
    'json (default); csv (text/csv: a header row, then one line per row with the same strings as JSON, null as an empty cell); ' +
    'parquet (application/vnd.apache.parquet) or arrow (application/vnd.apache.arrow.stream, the Arrow IPC stream format): ' +
    'one typed table with the CSV columns, time as a UTC millisecond timestamp and every other column an exact ' +
    'decimal(38, s) (s = 8 for rate, premium and funding_rate, 6 otherwise), null as null. ' +
    'Every format but json gives the next page in the X-Next-Start header; errors are always JSON.',
  default: 'json',
  message: () => 'format must be json, csv, parquet or arrow',
});

export function parseFormat(raw: RawParams): Format {
  return (parseParam(FORMAT, raw) as Format | undefined) ?? 'json';
}

export const isDataframe = (format: Format): format is DataframeFormat => format === 'parquet' || format === 'arrow';
