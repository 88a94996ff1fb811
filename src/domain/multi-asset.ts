/**
 * Where the one field of a multi-asset read comes from, and the venue and timeframe rules on
 * it: candle fields at any timeframe; funding_rate and the funding/premium features on the
 * perpetual venue at 1h only (they are hourly); the perpetual's context (open_interest,
 * mark_price) on the perpetual venue at any timeframe; technical features at their timeframe.
 */
import { AppError } from './errors';
import { FUNDING_TIMEFRAME_FEATURES } from './feature-catalogue';
import { CANDLE_FIELDS, DERIVATIVES_FIELDS } from './params/market-params';
import type { CandleTimeframe, FeatureTimeframe } from './timeframe';
import type { Exchanges } from './exchanges';

export interface MultiAssetSource {
  /** The stored series the values live in. */
  kind: 'candles' | 'funding' | 'features' | 'derivatives';
  /** The stored column: a candle field, `rate`, a context field or a feature name (never raw user input). */
  column: string;
  /** Decimal places served. */
  places: number;
  /** The stored timeframe to read (null for funding rates, which have none). */
  timeframe: FeatureTimeframe | null;
}

export function multiAssetSource(field: string, exchange: string, timeframe: CandleTimeframe, exchanges: Exchanges): MultiAssetSource {
  if ((CANDLE_FIELDS as readonly string[]).includes(field)) return { kind: 'candles', column: field, places: 6, timeframe };
  const hourlyOnly = (what: string) => {
    if (exchange !== exchanges.perp) {
      throw new AppError('INVALID_EXCHANGE', `${what} exists on the perpetual venue only; use exchange=${exchanges.perp}`, { parameter: 'exchange' });
    }
    if (timeframe !== '1h') {
      throw new AppError('INVALID_PARAMETER', `field ${field} is hourly: use timeframe=1h`, { parameter: 'field' });
    }
  };
  if ((DERIVATIVES_FIELDS as readonly string[]).includes(field)) {
    exchanges.requirePerp(exchange, `${field} (a perpetual's context)`);
    return { kind: 'derivatives', column: field, places: 6, timeframe };
  }
  if (field === 'funding_rate') {
    hourlyOnly('funding');
    return { kind: 'funding', column: 'rate', places: 8, timeframe: null };
  }
  if (FUNDING_TIMEFRAME_FEATURES.has(field)) {
    hourlyOnly(`feature ${field}`);
    return { kind: 'features', column: field, places: 6, timeframe: 'funding' };
  }
  return { kind: 'features', column: field, places: 6, timeframe };
}
