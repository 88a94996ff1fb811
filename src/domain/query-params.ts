/**
 * Parsing of request parameters, transport-free: REST passes query-string values, GraphQL
 * its arguments, and both get the same checks in the same order with the same codes.
 */
import { AppError } from './errors';
import { parseTimestamp } from './time';
import { isCandleTimeframe, type CandleTimeframe } from './timeframe';

/** Raw parameter values as they arrive (strings, or typed values from GraphQL). */
export type RawParams = Record<string, unknown>;

export const MAX_ROWS = 10_000;
export const DEFAULT_OHLCV_LIMIT = 1_000;

function text(raw: RawParams, name: string): string | undefined {
  const v = raw[name];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) {
    throw new AppError('INVALID_PARAMETER', `${name} was given more than once`, { parameter: name });
  }
  const s = String(v).trim();
  return s === '' ? undefined : s;
}

export function required(raw: RawParams, name: string): string {
  const v = text(raw, name);
  if (v === undefined) throw new AppError('MISSING_PARAMETER', `${name} is required`, { parameter: name });
  return v;
}

export function optional(raw: RawParams, name: string): string | undefined {
  return text(raw, name);
}

export function timeframe(raw: RawParams, allowed: readonly string[] = []): CandleTimeframe {
  const v = required(raw, 'timeframe');
  if (!isCandleTimeframe(v) && !allowed.includes(v)) {
    const list = ['1m', '5m', '15m', '1h', '4h', '1d', ...allowed].join(', ');
    throw new AppError('INVALID_TIMEFRAME', `timeframe "${v}" is not one of ${list}`, { parameter: 'timeframe' });
  }
  return v as CandleTimeframe;
}

function instant(raw: RawParams, name: 'start' | 'end'): number | undefined {
  const v = text(raw, name);
  if (v === undefined) return undefined;
  const ms = parseTimestamp(v);
  if (ms === null) {
    throw new AppError('INVALID_TIMESTAMP', `${name} "${v}" is not ISO 8601 or Unix milliseconds`, { parameter: name });
  }
  return ms;
}

export interface TimeRange {
  start: number;
  end: number;
}

/** start (required) and end (default now), both inclusive; start after end is refused. */
export function timeRange(raw: RawParams, nowMs: number): TimeRange {
  if (text(raw, 'start') === undefined) throw new AppError('MISSING_PARAMETER', 'start is required', { parameter: 'start' });
  const start = instant(raw, 'start')!;
  const end = instant(raw, 'end') ?? nowMs;
  if (start > end) throw new AppError('INVALID_TIME_RANGE', 'start is after end');
  return { start, end };
}

export function limit(raw: RawParams, def: number, max: number): number {
  const v = text(raw, 'limit');
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) {
    throw new AppError('INVALID_PARAMETER', `limit must be an integer from 1 to ${max.toLocaleString('en-US')}`, {
      parameter: 'limit',
    });
  }
  return Number(v);
}

export function boolean(raw: RawParams, name: string, def: boolean): boolean {
  const v = text(raw, name);
  if (v === undefined) return def;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new AppError('INVALID_PARAMETER', `${name} must be true or false`, { parameter: name });
}

/**
 * A comma-separated list (or an array from GraphQL): items trimmed, empty ones dropped,
 * de-duplicated, order kept.
 */
export function list(raw: RawParams, name: string): string[] {
  const v = raw[name];
  const items = (Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return [...new Set(items)];
}
