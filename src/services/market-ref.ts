/** A market named by the caller: venue and symbol, already validated and normalized. */
import { AppError } from '../domain/errors';

export interface MarketRef {
  exchange: string;
  symbol: string;
}

const SYMBOL_RE = /^[A-Z0-9]{1,20}-[A-Z0-9]{1,20}$/;

/** Upper-case and check a symbol (`BTC-USDT`); INVALID_PARAMETER when malformed. */
export function normalizeSymbol(input: string, parameter = 'symbol'): string {
  const s = input.trim().toUpperCase();
  if (!SYMBOL_RE.test(s)) {
    throw new AppError('INVALID_PARAMETER', `${parameter} "${input}" must look like BASE-QUOTE, e.g. BTC-USDT`, {
      parameter,
    });
  }
  return s;
}
