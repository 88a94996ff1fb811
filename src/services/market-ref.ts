/** A market named by the caller: venue and symbol, already validated and normalized. */
import { check, SYMBOL } from '../domain/query-params';

export interface MarketRef {
  exchange: string;
  symbol: string;
}

/** Check and upper-case a symbol (`BTC-USDT`) with the `symbol` parameter's schema. */
export function normalizeSymbol(input: string): string {
  return check(SYMBOL, input);
}
