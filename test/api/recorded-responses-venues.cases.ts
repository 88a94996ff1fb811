/**
 * The second set of recorded responses: the exchanges beyond the spec's two (every exchange
 * served), over the market fixtures plus Binance USD-M's BTC-USDT (hourly candles, 8-hourly
 * funding) and Bybit's (hourly candles, 4-hourly funding): discovery, candles, funding with
 * intervals, features, multi-asset, the refusals that name the exchanges, and GraphQL.
 */
import { HOUR, T0, iso } from '../helpers/fixtures';
import type { RecordedCase } from './recorded-responses.cases';

const q = (params: Record<string, string | number>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
const USDM = { symbol: 'BTC-USDT', exchange: 'binance-perp' };
const BYBIT = { symbol: 'BTC-USDT', exchange: 'bybit-perp' };
const gql = (name: string, query: string): RecordedCase => ({
  name: `graphql: ${name}`,
  method: 'POST',
  path: '/graphql',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ query }),
});

export const VENUE_CASES: RecordedCase[] = [
  { name: 'markets', path: '/v1/markets' },
  { name: 'markets of binance-perp', path: '/v1/markets?exchange=binance-perp' },
  { name: 'ohlcv binance-perp 1h', path: `/v1/ohlcv?${q({ ...USDM, timeframe: '1h', start: iso(T0), end: iso(T0 + 2 * HOUR) })}` },
  { name: 'funding binance-perp', path: `/v1/funding?${q({ ...USDM, start: iso(T0), end: iso(T0 + 24 * HOUR) })}` },
  { name: 'funding binance-perp with intervals', path: `/v1/funding?${q({ ...USDM, start: iso(T0), end: iso(T0 + 24 * HOUR), fields: 'interval_hours,rate_hourly' })}` },
  { name: 'funding binance-perp normalized after 90 settlements', path: `/v1/funding?${q({ ...USDM, start: iso(T0 + 712 * HOUR), end: iso(T0 + 736 * HOUR), normalized: 'true', fields: 'rate_hourly' })}` },
  { name: 'funding binance-perp csv with intervals', path: `/v1/funding?${q({ ...USDM, start: iso(T0), end: iso(T0 + 16 * HOUR), fields: 'rate_hourly,interval_hours', format: 'csv' })}` },
  { name: 'funding perp with intervals', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0), end: iso(T0 + 2 * HOUR), fields: 'interval_hours,rate_hourly' })}` },
  { name: 'funding unknown field', path: `/v1/funding?${q({ ...USDM, start: iso(T0), fields: 'interval' })}` },
  { name: 'funding on the spot venue names every perpetual', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'spot', start: iso(T0) })}` },
  { name: 'ohlcv unknown exchange names every exchange', path: `/v1/ohlcv?${q({ symbol: 'BTC-USDT', exchange: 'okx-perp', timeframe: '1h', start: iso(T0) })}` },
  { name: 'features binance-perp funding timeframe', path: `/v1/features?${q({ ...USDM, timeframe: 'funding', features: 'funding_norm,funding_cumulative_24h,funding_cumulative_7d,premium_pct', start: iso(T0 + 712 * HOUR), end: iso(T0 + 736 * HOUR) })}` },
  { name: 'features funding timeframe on spot', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: 'funding', features: 'funding_norm', start: iso(T0) })}` },
  { name: 'multi-asset funding_rate on binance-perp', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT', exchange: 'binance-perp', timeframe: '1h', field: 'funding_rate', start: iso(T0), end: iso(T0 + 16 * HOUR) })}` },
  { name: 'derivatives of binance-perp without recorded context', path: `/v1/derivatives?${q({ ...USDM, timeframe: '1h', start: iso(T0) })}` },
  { name: 'quality binance-perp', path: `/v1/quality?${q({ ...USDM, timeframe: '1h' })}` },
  { name: 'markets of bybit-perp', path: '/v1/markets?exchange=bybit-perp' },
  { name: 'ohlcv bybit-perp 1h', path: `/v1/ohlcv?${q({ ...BYBIT, timeframe: '1h', start: iso(T0), end: iso(T0 + 2 * HOUR) })}` },
  { name: 'funding bybit-perp 4-hourly with intervals', path: `/v1/funding?${q({ ...BYBIT, start: iso(T0), end: iso(T0 + 24 * HOUR), fields: 'interval_hours,rate_hourly' })}` },
  { name: 'funding bybit-perp normalized after 180 settlements', path: `/v1/funding?${q({ ...BYBIT, start: iso(T0 + 720 * HOUR), end: iso(T0 + 736 * HOUR), normalized: 'true', fields: 'rate_hourly' })}` },
  { name: 'features bybit-perp funding timeframe', path: `/v1/features?${q({ ...BYBIT, timeframe: 'funding', features: 'funding_norm,funding_cumulative_24h,funding_cumulative_7d,premium_pct', start: iso(T0 + 712 * HOUR), end: iso(T0 + 736 * HOUR) })}` },
  { name: 'multi-asset funding_rate on bybit-perp', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT', exchange: 'bybit-perp', timeframe: '1h', field: 'funding_rate', start: iso(T0), end: iso(T0 + 16 * HOUR) })}` },
  { name: 'derivatives of bybit-perp without recorded context', path: `/v1/derivatives?${q({ ...BYBIT, timeframe: '1h', start: iso(T0) })}` },
  { name: 'quality bybit-perp', path: `/v1/quality?${q({ ...BYBIT, timeframe: '1h' })}` },
  gql(
    'binance-perp funding with intervals and the market interval',
    `{ market(exchange: "binance-perp", symbol: "BTC-USDT") { fundingIntervalHours funding(start: "${iso(T0)}", end: "${iso(T0 + 16 * HOUR)}") { count data { time rate intervalHours rateHourly } } } }`,
  ),
  gql(
    'bybit-perp funding with intervals and the market interval',
    `{ market(exchange: "bybit-perp", symbol: "BTC-USDT") { fundingIntervalHours funding(start: "${iso(T0)}", end: "${iso(T0 + 16 * HOUR)}") { count data { time rate intervalHours rateHourly } } } }`,
  ),
  gql('markets with their funding intervals', `{ markets { exchange symbol fundingIntervalHours } }`),
];
