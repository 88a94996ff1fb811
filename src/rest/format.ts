/**
 * `format`: the representation of a data page, a REST matter (GraphQL has its own). json (the
 * default) or csv; anything else is INVALID_PARAMETER. It is checked before the read's own
 * parameters.
 */
import { z } from 'zod';
import { param, parseParam, type RawParams } from '../domain/params/param';

export const FORMAT = param('format', {
  schema: z.enum(['json', 'csv']),
  description:
    'json (default) or csv (text/csv: a header row, then one line per row with the same strings as JSON, null as an empty cell; the next page in the X-Next-Start header).',
  default: 'json',
  message: () => 'format must be json or csv',
});

export type Format = 'json' | 'csv';

export function parseFormat(raw: RawParams): Format {
  return (parseParam(FORMAT, raw) as Format | undefined) ?? 'json';
}
