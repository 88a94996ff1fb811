/**
 * `format=csv` (beyond the spec; analysts ask for it): a header row, then the same strings as
 * the JSON rows, null as an empty cell; the next page's start in `X-Next-Start`. Errors stay
 * JSON envelopes. Every cell is a decimal, a timestamp or a symbol, so no quoting is needed.
 */
import type { Response } from 'express';
import { AppError } from '../domain/errors';
import { optional, type RawParams } from '../domain/query-params';

/** The requested representation: json (default) or csv; anything else is INVALID_PARAMETER. */
export function wantsCsv(raw: RawParams): boolean {
  const f = optional(raw, 'format');
  if (f === undefined || f === 'json') return false;
  if (f === 'csv') return true;
  throw new AppError('INVALID_PARAMETER', 'format must be json or csv', { parameter: 'format' });
}

export function sendCsv(
  res: Response,
  columns: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | null | undefined>>,
  nextStart: string | null,
): void {
  const lines = [columns.join(',')];
  for (const r of rows) lines.push(r.map((v) => v ?? '').join(','));
  if (nextStart !== null) res.setHeader('X-Next-Start', nextStart);
  res.type('text/csv; charset=utf-8').send(lines.join('\n') + '\n');
}
