/**
 * The requests of the recorded-responses test: every REST route and GraphQL field of the
 * contract, its successes, its refusals and its edges (paging, CSV, compression, tiers,
 * quotas, keys), over the market fixtures at a fixed clock.
 */
import { HOUR, MINUTE, T0, iso } from '../helpers/fixtures';

export type KeyKind = 'free' | 'pro' | 'scale' | 'none' | 'invalid' | 'revoked';

export interface CaseContext {
  /** A second key of the case's user (for revocation), created on demand. */
  sibling(): Promise<{ key: string; hash: string }>;
}

export interface RecordedCase {
  name: string;
  /** Whose key goes in X-API-Key: a fresh key of that tier per case (default pro). */
  key?: KeyKind;
  method?: string;
  path: string | ((c: CaseContext) => Promise<string>);
  headers?: Record<string, string>;
  body?: string;
  /** Send the request this many times first with the same key (quota exhaustion). */
  before?: number;
  /** Parts of the answer that change from run to run, left out of the recording. */
  volatile?: { headers?: string[]; body?: 'hash' | 'none' };
}

const q = (params: Record<string, string | number>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

const DAY = 24 * HOUR;
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const gql = (name: string, query: string, variables?: Record<string, unknown>, extra: Partial<RecordedCase> = {}): RecordedCase => ({
  name: `graphql: ${name}`,
  method: 'POST',
  path: '/graphql',
  headers: JSON_HEADERS,
  body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  ...extra,
});

const ohlcv = (p: Record<string, string | number>) => `/v1/ohlcv?${q(p)}`;
const BTC_1H = { symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', start: iso(T0) };

export const CASES: RecordedCase[] = [
  // ---- public, unmetered --------------------------------------------------------------
  { name: 'health', key: 'none', path: '/health', volatile: { headers: ['content-length'], body: 'none' } },
  { name: 'root', key: 'none', path: '/' },
  { name: 'root from a browser', key: 'none', path: '/', headers: { Accept: 'text/html' } },
  { name: 'unknown route', key: 'none', path: '/v2/nothing?x=1' },
  { name: 'openapi document', key: 'none', path: '/v1/openapi.json' },
  { name: 'docs page', key: 'none', path: '/docs' },
  { name: 'docs init script', key: 'none', path: '/docs/init.js' },
  { name: 'docs asset', key: 'none', path: '/docs/assets/swagger-ui.css', volatile: { headers: ['last-modified', 'etag'], body: 'hash' } },
  { name: 'docs unknown asset', key: 'none', path: '/docs/assets/package.json' },
  { name: 'metrics', key: 'none', path: '/metrics', volatile: { headers: ['content-length'], body: 'none' } },
  { name: 'CORS preflight', key: 'none', method: 'OPTIONS', path: '/v1/ohlcv', headers: { Origin: 'https://a.example', 'Access-Control-Request-Headers': 'x-api-key' } },

  // ---- authentication and quotas --------------------------------------------------------
  { name: 'ohlcv without a key', key: 'none', path: ohlcv(BTC_1H) },
  { name: 'ohlcv with an unknown key', key: 'invalid', path: ohlcv(BTC_1H) },
  { name: 'ohlcv with a revoked key', key: 'revoked', path: ohlcv(BTC_1H) },
  { name: 'free key over its minute quota', key: 'free', before: 10, path: ohlcv(BTC_1H) },

  // ---- /v1/ohlcv -----------------------------------------------------------------------
  { name: 'ohlcv 1h spot', path: ohlcv({ ...BTC_1H, end: T0 + 2 * HOUR }) },
  { name: 'ohlcv lower-case symbol, Unix ms', path: ohlcv({ ...BTC_1H, symbol: 'btc-usdt', start: T0, end: T0 + HOUR }) },
  { name: 'ohlcv 4h rollup, limit 1', path: ohlcv({ ...BTC_1H, exchange: 'perp', timeframe: '4h', limit: 1 }) },
  { name: 'ohlcv 1d', path: ohlcv({ ...BTC_1H, timeframe: '1d', limit: 3 }) },
  { name: 'ohlcv 1m page with next_start', path: ohlcv({ symbol: 'ETH-USDT', exchange: 'spot', timeframe: '1m', start: iso(T0), limit: 5 }) },
  { name: 'ohlcv next page from an encoded next_start', path: `/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&limit=3&start=2024-01-01T00%3A05%3A00%2B00%3A00` },
  { name: 'ohlcv next page from an unencoded next_start (its + read as a space)', path: `/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&limit=3&start=2024-01-01T00:05:00+00:00` },
  { name: 'ohlcv start equals end', path: ohlcv({ ...BTC_1H, end: iso(T0) }) },
  { name: 'ohlcv unknown symbol', path: ohlcv({ ...BTC_1H, symbol: 'NOPE-USDT' }) },
  { name: 'ohlcv whole history, default limit', path: ohlcv({ ...BTC_1H, timeframe: '4h' }) },
  { name: 'ohlcv csv', path: ohlcv({ ...BTC_1H, end: T0 + 3 * HOUR, format: 'csv' }) },
  { name: 'ohlcv csv with a next page', path: ohlcv({ ...BTC_1H, limit: 2, format: 'csv' }) },
  { name: 'ohlcv gzip', path: ohlcv({ ...BTC_1H, limit: 100 }), headers: { 'Accept-Encoding': 'gzip' } },
  { name: 'ohlcv missing symbol', path: ohlcv({ exchange: 'spot', timeframe: '1h', start: iso(T0) }) },
  { name: 'ohlcv malformed symbol', path: ohlcv({ ...BTC_1H, symbol: 'BTCUSDT' }) },
  { name: 'ohlcv unknown exchange', path: ohlcv({ ...BTC_1H, exchange: 'binance' }) },
  { name: 'ohlcv bad timeframe', path: ohlcv({ ...BTC_1H, timeframe: '2h' }) },
  { name: 'ohlcv missing start', path: ohlcv({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h' }) },
  { name: 'ohlcv bad start', path: ohlcv({ ...BTC_1H, start: '2024-02-30' }) },
  { name: 'ohlcv start after end', path: ohlcv({ ...BTC_1H, start: iso(T0 + DAY), end: iso(T0) }) },
  { name: 'ohlcv limit 0', path: ohlcv({ ...BTC_1H, limit: 0 }) },
  { name: 'ohlcv limit over 10,000', path: ohlcv({ ...BTC_1H, limit: 10_001 }) },
  { name: 'ohlcv limit not a number', path: ohlcv({ ...BTC_1H, limit: 'ten' }) },
  { name: 'ohlcv repeated parameter', path: `${ohlcv(BTC_1H)}&timeframe=4h` },
  { name: 'ohlcv unknown format', path: ohlcv({ ...BTC_1H, format: 'xml' }) },
  { name: 'ohlcv free key, 1m', key: 'free', path: ohlcv({ ...BTC_1H, timeframe: '1m' }) },
  { name: 'ohlcv free key, window over 365 days', key: 'free', path: ohlcv({ ...BTC_1H, end: iso(T0 + 366 * DAY) }) },
  { name: 'ohlcv free key, 1h', key: 'free', path: ohlcv({ ...BTC_1H, end: T0 + HOUR }) },
  { name: 'ohlcv scale key', key: 'scale', path: ohlcv({ ...BTC_1H, end: T0 + HOUR }) },
  { name: 'ohlcv with trade-flow fields (imported: null)', path: ohlcv({ ...BTC_1H, end: T0 + HOUR, fields: 'trades,taker_buy_volume' }) },
  { name: 'ohlcv csv with trade-flow fields', path: ohlcv({ ...BTC_1H, end: T0 + HOUR, fields: 'quote_volume,trades', format: 'csv' }) },
  { name: 'ohlcv with an unknown field', path: ohlcv({ ...BTC_1H, fields: 'trades,taker_sell_volume' }) },

  // ---- /v1/derivatives -------------------------------------------------------------------
  { name: 'derivatives of a perpetual without recorded context', path: `/v1/derivatives?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1h', start: iso(T0) })}` },
  { name: 'derivatives on the spot venue', path: `/v1/derivatives?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', start: iso(T0) })}` },
  { name: 'derivatives free key, 1m', key: 'free', path: `/v1/derivatives?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1m', start: iso(T0) })}` },
  { name: 'derivatives missing timeframe', path: `/v1/derivatives?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0) })}` },

  // ---- /v1/funding ---------------------------------------------------------------------
  { name: 'funding', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0), end: iso(T0 + 3 * HOUR) })}` },
  { name: 'funding normalized (warm-up)', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0), end: iso(T0 + 2 * HOUR), normalized: 'true' })}` },
  { name: 'funding normalized (after warm-up)', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0 + 720 * HOUR), end: iso(T0 + 723 * HOUR), normalized: 'true' })}` },
  { name: 'funding csv normalized', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0 + 719 * HOUR), end: iso(T0 + 721 * HOUR), normalized: 'true', format: 'csv' })}` },
  { name: 'funding on the spot venue', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'spot', start: iso(T0) })}` },
  { name: 'funding normalized=yes', path: `/v1/funding?${q({ symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0), normalized: 'yes' })}` },
  { name: 'funding symbol without funding', path: `/v1/funding?${q({ symbol: 'ETH-USDT', exchange: 'perp', start: iso(T0) })}` },

  // ---- /v1/multi-asset -----------------------------------------------------------------
  { name: 'multi-asset close 1m', path: `/v1/multi-asset?${q({ symbols: 'ETH-USDT,SOL-USDT', exchange: 'spot', timeframe: '1m', field: 'close', start: iso(T0), end: iso(T0 + 5 * MINUTE) })}` },
  { name: 'multi-asset repeated and duplicate symbols', path: `/v1/multi-asset?symbols=sol-usdt,%20ETH-USDT&symbols=SOL-USDT&${q({ exchange: 'spot', timeframe: '1m', field: 'volume', start: iso(T0), end: iso(T0 + 4 * MINUTE) })}` },
  { name: 'multi-asset funding_rate', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT,ETH-USDT', exchange: 'perp', timeframe: '1h', field: 'funding_rate', start: iso(T0), end: iso(T0 + 2 * HOUR) })}` },
  { name: 'multi-asset feature', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT,ETH-USDT', exchange: 'spot', timeframe: '1h', field: 'rsi_14', start: iso(T0 + 13 * HOUR), end: iso(T0 + 15 * HOUR) })}` },
  { name: 'multi-asset funding feature', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT', exchange: 'perp', timeframe: '1h', field: 'funding_cumulative_24h', start: iso(T0 + 22 * HOUR), end: iso(T0 + 24 * HOUR) })}` },
  { name: 'multi-asset csv', path: `/v1/multi-asset?${q({ symbols: 'ETH-USDT,SOL-USDT', exchange: 'spot', timeframe: '1m', field: 'close', start: iso(T0), end: iso(T0 + 4 * MINUTE), format: 'csv' })}` },
  { name: 'multi-asset missing symbols', path: `/v1/multi-asset?${q({ symbols: ' , ', exchange: 'spot', timeframe: '1h', field: 'close', start: iso(T0) })}` },
  { name: 'multi-asset malformed symbols', path: `/v1/multi-asset?${q({ symbols: 'BTC,ETH-USDT,X', exchange: 'spot', timeframe: '1h', field: 'close', start: iso(T0) })}` },
  { name: 'multi-asset bad field', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT', exchange: 'spot', timeframe: '1h', field: 'vwap', start: iso(T0) })}` },
  { name: 'multi-asset funding_rate on spot', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT', exchange: 'spot', timeframe: '1h', field: 'funding_rate', start: iso(T0) })}` },
  { name: 'multi-asset funding_rate on 4h', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT', exchange: 'perp', timeframe: '4h', field: 'funding_rate', start: iso(T0) })}` },
  { name: 'multi-asset free key, 6 symbols', key: 'free', path: `/v1/multi-asset?${q({ symbols: 'A-B,C-D,E-F,G-H,I-J,K-L', exchange: 'spot', timeframe: '1h', field: 'close', start: iso(T0) })}` },
  { name: 'multi-asset open_interest', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT,ETH-USDT', exchange: 'perp', timeframe: '1h', field: 'open_interest', start: iso(T0), end: iso(T0 + 2 * HOUR) })}` },
  { name: 'multi-asset mark_price on spot', path: `/v1/multi-asset?${q({ symbols: 'BTC-USDT', exchange: 'spot', timeframe: '1h', field: 'mark_price', start: iso(T0) })}` },

  // ---- /v1/features --------------------------------------------------------------------
  { name: 'features catalogue', path: '/v1/features/available' },
  { name: 'features 1h', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', features: 'rsi_14,macd,bb_upper,vwap_20,atr_14', start: iso(T0 + 30 * HOUR), end: iso(T0 + 33 * HOUR) })}` },
  { name: 'features warm-up nulls', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '4h', features: 'rsi_9, twap_20,rsi_9', start: iso(T0), end: iso(T0 + DAY) })}` },
  { name: 'features funding timeframe', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: 'funding', features: 'funding_norm,funding_cumulative_24h,funding_cumulative_7d,premium_pct,premium_zscore', start: iso(T0 + 719 * HOUR), end: iso(T0 + 721 * HOUR) })}` },
  { name: 'features csv', path: `/v1/features?${q({ symbol: 'ETH-USDT', exchange: 'spot', timeframe: '1m', features: 'rsi_14,bb_pct', start: iso(T0 + 30 * MINUTE), end: iso(T0 + 33 * MINUTE), format: 'csv' })}` },
  { name: 'features missing features', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', features: '', start: iso(T0) })}` },
  { name: 'features unknown features', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', features: 'rsi_14,rsi_99,foo', start: iso(T0) })}` },
  { name: 'features funding feature on 1h', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1h', features: 'funding_norm', start: iso(T0) })}` },
  { name: 'features technical feature on funding', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: 'funding', features: 'rsi_14,macd', start: iso(T0) })}` },
  { name: 'features funding timeframe on spot', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: 'funding', features: 'funding_norm', start: iso(T0) })}` },
  { name: 'features free key, 1m', key: 'free', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1m', features: 'rsi_14', start: iso(T0) })}` },
  { name: 'features free key, funding over 365 days', key: 'free', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: 'funding', features: 'funding_norm', start: iso(T0 - 400 * DAY), end: iso(T0 + 720 * HOUR) })}` },
  { name: 'features start after end', path: `/v1/features?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', features: 'rsi_14', start: iso(T0 + DAY), end: iso(T0) })}` },

  // ---- /v1/quality and /v1/markets -------------------------------------------------------
  { name: 'quality all timeframes', path: `/v1/quality?${q({ symbol: 'BTC-USDT', exchange: 'spot' })}` },
  { name: 'quality one timeframe', path: `/v1/quality?${q({ symbol: 'SOL-USDT', exchange: 'spot', timeframe: '1m' })}` },
  { name: 'quality free key', key: 'free', path: `/v1/quality?${q({ symbol: 'ETH-USDT', exchange: 'spot' })}` },
  { name: 'quality free key, 1m', key: 'free', path: `/v1/quality?${q({ symbol: 'ETH-USDT', exchange: 'spot', timeframe: '1m' })}` },
  { name: 'quality unknown market', path: `/v1/quality?${q({ symbol: 'NOPE-USDT', exchange: 'spot' })}` },
  { name: 'quality bad timeframe', path: `/v1/quality?${q({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: 'funding' })}` },
  { name: 'markets', path: '/v1/markets' },
  { name: 'markets of one venue', path: '/v1/markets?exchange=PERP' },
  { name: 'markets of an unknown venue', path: '/v1/markets?exchange=nyse' },

  // ---- keys ------------------------------------------------------------------------------
  { name: 'create key without admin token', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: JSON_HEADERS, body: '{"user_id":"5e0c8c1e-1111-4000-8000-000000000001","tier":"pro"}' },
  { name: 'create key with a wrong admin token', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: { ...JSON_HEADERS, 'X-Admin-Token': 'nope' }, body: '{"user_id":"5e0c8c1e-1111-4000-8000-000000000001","tier":"pro"}' },
  { name: 'create key', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: { ...JSON_HEADERS, 'X-Admin-Token': 'recorded-admin-token' }, body: '{"user_id":"5E0C8C1E-1111-4000-8000-000000000001","tier":"scale","label":"desk"}' },
  { name: 'create key bad tier', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: { ...JSON_HEADERS, 'X-Admin-Token': 'recorded-admin-token' }, body: '{"user_id":"5e0c8c1e-1111-4000-8000-000000000001","tier":"gold"}' },
  { name: 'create key missing user', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: { ...JSON_HEADERS, 'X-Admin-Token': 'recorded-admin-token' }, body: '{"tier":"pro"}' },
  { name: 'create key bad JSON', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: { ...JSON_HEADERS, 'X-Admin-Token': 'recorded-admin-token' }, body: '{"tier":' },
  { name: 'create key form body', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Admin-Token': 'recorded-admin-token' }, body: 'tier=pro' },
  { name: 'create key label too long', key: 'none', method: 'POST', path: '/v1/auth/keys', headers: { ...JSON_HEADERS, 'X-Admin-Token': 'recorded-admin-token' }, body: JSON.stringify({ user_id: '5e0c8c1e-1111-4000-8000-000000000001', tier: 'pro', label: 'x'.repeat(101) }) },
  { name: 'list keys', path: '/v1/auth/keys' },
  { name: 'revoke a key of the same user', method: 'DELETE', path: async (c) => `/v1/auth/keys/${(await c.sibling()).hash}` },
  { name: 'revoke an unknown key', method: 'DELETE', path: `/v1/auth/keys/${'ab'.repeat(32)}` },
  { name: 'revoke a malformed hash', method: 'DELETE', path: '/v1/auth/keys/xyz' },

  // ---- GraphQL -------------------------------------------------------------------------
  gql('me', '{ me { userId tier keyHint quota { dayLimit dayRemaining minuteLimit minuteRemaining minuteReset dayReset } limits { timeframes historyDays multiAssetSymbols } } }'),
  gql('me of a scale key', '{ me { tier quota { dayLimit dayRemaining minuteLimit minuteRemaining } limits { historyDays multiAssetSymbols } } }', undefined, { key: 'scale' }),
  gql('candles data', '{ market(exchange: "spot", symbol: "btc-usdt") { exchange symbol candles(timeframe: "1h", start: "2024-01-01T00:00:00Z", limit: 3) { count nextStart data { time open high low close volume } } } }'),
  gql('candles columns', 'query($s: String!) { market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "4h", start: $s, limit: 2) { count nextStart columns { time open high low close volume } } } }', { s: String(T0) }),
  gql('funding normalized', '{ market(exchange: "perp", symbol: "BTC-USDT") { funding(start: "2024-01-30T23:00:00Z", end: "2024-01-31T01:00:00Z", normalized: true) { count nextStart data { time rate rateNormalized premium } } } }'),
  gql('funding raw', '{ market(exchange: "perp", symbol: "BTC-USDT") { funding(start: "2024-01-01T00:00:00Z", end: "2024-01-01T02:00:00Z") { count data { time rate rateNormalized premium } } } }'),
  gql('features', '{ market(exchange: "spot", symbol: "BTC-USDT") { features(timeframe: "1h", names: ["rsi_14", "macd", "rsi_14"], start: "2024-01-02T06:00:00Z", end: "2024-01-02T08:00:00Z") { features count nextStart data { time values { name value } } } } }'),
  gql('features on the funding timeframe', '{ market(exchange: "perp", symbol: "BTC-USDT") { features(timeframe: "funding", names: ["funding_norm", "premium_pct"], start: "2024-01-31T00:00:00Z", end: "2024-01-31T01:00:00Z") { count data { time values { name value } } } } }'),
  gql('quality', '{ market(exchange: "spot", symbol: "SOL-USDT") { quality { timeframe dqs band computedAt components { gapRateScore anomalyScore consistencyScore freshnessScore } expectedCandles presentCandles missingIntervals { start end } } } }'),
  gql('quality of two markets', '{ a: market(exchange: "spot", symbol: "BTC-USDT") { quality(timeframe: "1h") { timeframe dqs } } b: market(exchange: "perp", symbol: "BTC-USDT") { quality(timeframe: "1h") { timeframe dqs } } c: market(exchange: "spot", symbol: "NOPE-USDT") { quality { dqs } } }'),
  gql('coverage', '{ market(exchange: "spot", symbol: "ETH-USDT") { coverage { timeframe first last } } }'),
  gql('markets with coverage and candles', '{ markets(exchange: "perp") { exchange symbol coverage { timeframe first last } candles(timeframe: "1d", start: "2024-01-01", limit: 1) { count data { time close } } } }'),
  gql('multiAsset', '{ multiAsset(exchange: "spot", symbols: ["ETH-USDT", "sol-usdt"], timeframe: "1m", field: "close", start: "2024-01-01T00:00:00Z", end: "2024-01-01T00:04:00Z") { symbols exchange timeframe field count nextStart data { time values { symbol value } } } }'),
  gql('candles with trade flow', '{ market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "2024-01-01T00:00:00Z", limit: 2) { data { time trades quoteVolume takerBuyVolume takerBuyQuoteVolume } columns { trades } } } }'),
  gql('derivatives', '{ market(exchange: "perp", symbol: "BTC-USDT") { derivatives(timeframe: "1h", start: "2024-01-01T00:00:00Z", limit: 2) { count nextStart data { time openInterest markPrice } columns { time } } } }'),
  gql('derivatives on the spot venue', '{ market(exchange: "spot", symbol: "BTC-USDT") { derivatives(timeframe: "1h", start: "2024-01-01") { count } } }'),
  gql('featureCatalogue', '{ featureCatalogue { name description category } }'),
  gql('apiKeys', '{ apiKeys { keyHash keyHint userId tier label createdAt status revokedAt } }'),
  gql('revokeApiKey unknown', 'mutation { revokeApiKey(keyHash: "00") { keyHash status revokedAt } }'),
  gql('free key asks 1m candles', '{ market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1m", start: "2024-01-01") { count } } }', undefined, { key: 'free' }),
  gql('bad arguments', '{ market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "2h", start: "yesterday", limit: 0) { count } funding(start: "2024-01-01") { count } } }'),
  gql('bad market', '{ market(exchange: "nyse", symbol: "BTC-USDT") { exchange } }'),
  gql('wrong argument type', '{ market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "2024-01-01", limit: "ten") { count } } }'),
  gql('variables of the wrong type', 'query($l: Int) { market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "2024-01-01", limit: $l) { count } } }', { l: 'x' }),
  gql('unknown field', '{ nothing }'),
  gql('parse error', '{ market('),
  gql('too costly', '{ multiAsset(exchange: "spot", symbols: ["A-B"], timeframe: "1h", field: "close", start: "2024-01-01") { count } markets { candles(timeframe: "1h", start: "2024-01-01", limit: 10000) { count } } }'),
  gql('too deep', '', undefined, { body: JSON.stringify({ query: `{ me ${'{ quota '.repeat(70)}${'}'.repeat(71)}` }) }),
  gql('without a key', '{ me { tier } }', undefined, { key: 'none' }),
  gql('free key over its minute quota', '{ me { tier } }', undefined, { key: 'free', before: 10 }),
  gql('not JSON', '{ me { tier } }', undefined, { headers: { 'Content-Type': 'text/plain' } }),
  gql('batch', '', undefined, { body: JSON.stringify([{ query: '{ me { tier } }' }]) }),
  gql('introspection', '{ __schema { queryType { name } mutationType { name } types { name kind fields { name type { name kind ofType { name kind ofType { name kind ofType { name } } } } } } } }'),
  { name: 'graphql: GET query', path: `/graphql?query=${encodeURIComponent('{ me { tier } }')}` },
  { name: 'graphql: GET without a query from a browser', key: 'none', path: '/graphql', headers: { Accept: 'text/html' }, volatile: { headers: ['content-length'], body: 'hash' } },
  { name: 'graphql: GET with an Accept it cannot serve', path: `/graphql?query=${encodeURIComponent('{ me { tier } }')}`, headers: { Accept: 'text/csv' } },
];
