/**
 * The reads as declared in domain/params: each parameter checked in order, each rule at its
 * place, the same answers for REST text and GraphQL values.
 */
import { AppError } from '../../src/domain/errors';
import { DEFAULT_OHLCV_LIMIT, MAX_ROWS } from '../../src/domain/params/market-params';
import { paramList } from '../../src/domain/params/endpoint';
import { marketEndpoints } from '../../src/domain/params/market-endpoints';
import { Exchanges } from '../../src/domain/exchanges';

const endpoints = marketEndpoints(new Exchanges(['perp', 'spot']));
const NOW = Date.UTC(2024, 5, 1);
const T = '2024-01-01T00:00:00Z';
const T_MS = Date.UTC(2024, 0, 1);

/** The code (and parameter) a read refuses `raw` with; null when it accepts it. */
function refusal(read: { parse(raw: Record<string, unknown>, now: number): unknown }, raw: Record<string, unknown>) {
  try {
    read.parse(raw, NOW);
    return null;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, parameter: err.extras.parameter, message: err.message };
  }
}

const OHLCV = { symbol: 'btc-usdt', exchange: 'SPOT', timeframe: '1h', start: T };

describe('a read parses its parameters', () => {
  it('when every parameter is valid, then the request is normalized and defaulted (symbol upper-cased, venue lower-cased, end now, limit 1,000)', () => {
    expect(endpoints.ohlcv.parse(OHLCV, NOW)).toEqual({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', start: T_MS, end: NOW, limit: DEFAULT_OHLCV_LIMIT });
  });

  it('when GraphQL hands typed values (a number limit, a boolean, an array), then they parse as their text would', () => {
    expect(endpoints.ohlcv.parse({ ...OHLCV, limit: 25, end: null }, NOW)).toMatchObject({ limit: 25, end: NOW });
    expect(endpoints.funding.parse({ symbol: 'BTC-USDT', exchange: 'perp', start: T, normalized: true }, NOW)).toMatchObject({ normalized: true });
    expect(endpoints.multiAsset.parse({ symbols: ['eth-usdt', 'BTC-USDT,eth-usdt'], exchange: 'spot', timeframe: '1h', field: 'close', start: T }, NOW)).toMatchObject({
      symbols: ['ETH-USDT', 'BTC-USDT'],
    });
  });

  it('when several parameters are wrong, then the first in the declared order answers', () => {
    expect(refusal(endpoints.ohlcv, { exchange: 'nyse', timeframe: '2h' })).toMatchObject({ code: 'MISSING_PARAMETER', parameter: 'symbol' });
    expect(refusal(endpoints.ohlcv, { symbol: 'BTC-USDT', exchange: 'nyse', timeframe: '2h' })).toMatchObject({ code: 'INVALID_EXCHANGE' });
    expect(refusal(endpoints.ohlcv, { ...OHLCV, timeframe: '2h', start: 'x' })).toMatchObject({ code: 'INVALID_TIMEFRAME' });
    expect(refusal(endpoints.ohlcv, { ...OHLCV, start: 'x', limit: '0' })).toMatchObject({ code: 'INVALID_TIMESTAMP', parameter: 'start' });
  });

  it('when start is after end, then INVALID_TIME_RANGE comes right after end, before limit is read', () => {
    expect(refusal(endpoints.ohlcv, { ...OHLCV, end: '2023-01-01', limit: 'x' })).toMatchObject({ code: 'INVALID_TIME_RANGE' });
    expect(refusal(endpoints.ohlcv, { ...OHLCV, end: T, start: T })).toBeNull();
  });

  it('when a rule names its place, then it runs there: funding on the spot venue is refused before start is read', () => {
    expect(refusal(endpoints.funding, { symbol: 'BTC-USDT', exchange: 'spot', start: 'nonsense' })).toMatchObject({ code: 'INVALID_EXCHANGE', parameter: 'exchange' });
  });

  it('when a multi-asset field does not fit venue or timeframe, then that is refused right after field, before start', () => {
    const base = { symbols: 'BTC-USDT', timeframe: '1h', start: 'nonsense' };
    expect(refusal(endpoints.multiAsset, { ...base, exchange: 'spot', field: 'funding_rate' })).toMatchObject({ code: 'INVALID_EXCHANGE' });
    expect(refusal(endpoints.multiAsset, { ...base, exchange: 'perp', timeframe: '4h', field: 'funding_norm' })).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'field' });
    expect(refusal(endpoints.multiAsset, { ...base, exchange: 'perp', field: 'funding_rate' })).toMatchObject({ code: 'INVALID_TIMESTAMP' });
  });

  it('when features are misplaced or the funding timeframe is asked of the spot venue, then UNKNOWN_FEATURES comes before INVALID_EXCHANGE, both after features', () => {
    const base = { symbol: 'BTC-USDT', start: 'nonsense' };
    expect(refusal(endpoints.features, { ...base, exchange: 'spot', timeframe: 'funding', features: 'rsi_14' })).toMatchObject({ code: 'UNKNOWN_FEATURES' });
    expect(refusal(endpoints.features, { ...base, exchange: 'spot', timeframe: 'funding', features: 'funding_norm' })).toMatchObject({ code: 'INVALID_EXCHANGE' });
    expect(refusal(endpoints.features, { ...base, exchange: 'spot', timeframe: 'funding', features: 'nope' })).toMatchObject({ code: 'UNKNOWN_FEATURES', message: expect.stringContaining('unknown features: nope') });
  });
});

describe('parameter values', () => {
  it.each([
    ['a repeated parameter', { ...OHLCV, timeframe: ['1h', '4h'] }, 'INVALID_PARAMETER', 'timeframe'],
    ['an empty required parameter', { ...OHLCV, symbol: '  ' }, 'MISSING_PARAMETER', 'symbol'],
    ['a malformed symbol', { ...OHLCV, symbol: 'BTCUSDT' }, 'INVALID_PARAMETER', 'symbol'],
    ['a limit with a sign', { ...OHLCV, limit: '+5' }, 'INVALID_PARAMETER', 'limit'],
    ['a limit over the maximum', { ...OHLCV, limit: String(MAX_ROWS + 1) }, 'INVALID_PARAMETER', 'limit'],
    ['an impossible date', { ...OHLCV, start: '2024-02-30' }, 'INVALID_TIMESTAMP', 'start'],
  ])('when %s is given, then %s naming %s', (_what, raw, code, parameter) => {
    expect(refusal(endpoints.ohlcv, raw)).toMatchObject({ code, parameter });
  });

  it('when a list has empty items, duplicates and spaces, then they are dropped, order kept; none left is MISSING_SYMBOLS', () => {
    expect(endpoints.multiAsset.parse({ symbols: ' sol-usdt, ,ETH-USDT,SOL-USDT', exchange: 'spot', timeframe: '1h', field: 'close', start: T }, NOW).symbols).toEqual([
      'SOL-USDT',
      'ETH-USDT',
    ]);
    expect(refusal(endpoints.multiAsset, { symbols: ' , ', exchange: 'spot', timeframe: '1h', field: 'close', start: T })).toMatchObject({ code: 'MISSING_SYMBOLS' });
  });

  it('when several list items are refused, then one error names them all', () => {
    expect(refusal(endpoints.features, { symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', features: 'rsi_14,a,b', start: T })?.message).toBe(
      'unknown features: a, b (GET /v1/features/available lists them)',
    );
  });

  it('when a start has a space in place of its offset\'s +, then it is that instant', () => {
    expect(endpoints.ohlcv.parse({ ...OHLCV, start: '2024-01-01T02:00:00 02:00' }, NOW).start).toBe(T_MS);
  });

  it('when fields is empty or absent, then the request is the one without it; named, the list in order without repeats', () => {
    expect(endpoints.ohlcv.parse({ ...OHLCV, fields: ' , ' }, NOW).fields).toBeUndefined();
    expect(JSON.stringify(endpoints.ohlcv.parse({ ...OHLCV, fields: '' }, NOW))).toBe(JSON.stringify(endpoints.ohlcv.parse(OHLCV, NOW)));
    expect(endpoints.ohlcv.parse({ ...OHLCV, fields: 'trades, quote_volume,trades' }, NOW).fields).toEqual(['trades', 'quote_volume']);
  });

  it('when derivatives are asked of the spot exchange, then INVALID_EXCHANGE right after the exchange, before a bad timeframe', () => {
    expect(() => endpoints.derivatives.parse({ ...OHLCV, exchange: 'spot', timeframe: 'x' }, NOW)).toThrow(expect.objectContaining({ code: 'INVALID_EXCHANGE' }));
    expect(endpoints.derivatives.parse({ ...OHLCV, exchange: 'perp' }, NOW)).toMatchObject({ exchange: 'perp', limit: 1_000 });
  });
});

describe('what the transports derive from a read', () => {
  it('lists the parameters in check order, with their codes and kinds', () => {
    expect(paramList(endpoints.ohlcv).map((p) => [p.name, p.required, p.kind])).toEqual([
      ['symbol', true, 'text'],
      ['exchange', true, 'text'],
      ['timeframe', true, 'text'],
      ['start', true, 'text'],
      ['end', false, 'text'],
      ['limit', false, 'integer'],
      ['fields', false, 'list'],
    ]);
    expect(endpoints.ohlcv.params.fields).toMatchObject({ codes: ['INVALID_PARAMETER'], graphql: { omit: true } });
    expect(endpoints.funding.params.normalized).toMatchObject({ kind: 'boolean', default: false, graphql: { defaultValue: false } });
    expect(endpoints.features.params.features).toMatchObject({ kind: 'list', codes: ['MISSING_FEATURES', 'UNKNOWN_FEATURES'], graphql: { name: 'names' } });
  });
});
