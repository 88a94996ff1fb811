/**
 * What the fuzz sends: run counts and fast-check's report, and value generators that start
 * from valid requests (so they reach the deeper checks) and mutate a few parts.
 */
import fc from 'fast-check';
import { FEATURE_CATALOGUE } from '../../../src/domain/feature-catalogue';
import { HOUR, T0, iso } from '../fixtures';
import { RAW, UNRESERVED, pct } from './wire';

export const NOW = T0 + 900 * HOUR + 30_000;
export const DAY = 86_400_000;
export const ADMIN_TOKEN = 'fuzz-admin-token-0123456789';
export const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
export const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
export const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

/** fast-check's report, with the counterexample cut short (a generated value can be 500 KB). */
export function reporter(out: fc.RunDetails<unknown>): void {
  if (!out.failed) return;
  const example = fc.stringify(out.counterexample);
  const error = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  throw new Error(
    `Property failed after ${out.numRuns} tests (seed ${out.seed}, path "${out.counterexamplePath}"; replay with FUZZ_SEED=${out.seed})\n` +
      `Counterexample (shrunk ${out.numShrinks} times): ${example.length > 2_000 ? `${example.slice(0, 2_000)}… (${example.length} chars)` : example}\n${error}`,
  );
}
export const fuzzParams = (numRuns: number): fc.Parameters<unknown> => ({ numRuns: runs(numRuns), reporter, ...(SEED === undefined ? {} : { seed: SEED }) });

// ---- value generators ----------------------------------------------------------------------

export const FEATURES = FEATURE_CATALOGUE.map((f) => f.name);
export const TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1d'];

export const JUNK = [
  '', ' ', '  ', '%', '%%', '%zz', '%0', '%00', '%2', '%2F', '%C0%AF', '%E2%82', '%E0%A4%A', '%FF%FE', '%u0041', '%25', '%%25zz',
  '+', '++', '&', '&&', '=', '==', '#', '?', ';', ',', ',,,', '.', '..', '../..', '/', '\\', "'", '"', '`', '<script>', '${x}', '$1',
  'null', 'undefined', 'NaN', 'Infinity', '-Infinity', '-0', '0', '-1', '1e309', '0x10', '[]', '{}', '[object Object]', 'true', 'false',
  '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf',
  "' OR '1'='1", "1; DROP TABLE candles; --", "BTC-USDT' UNION SELECT 1 --", '$$ $$', '\\x00',
  '\u0000', '\u0007', '\t', '\n', '\r\n', '\u00a0', '\u200b', '\u202e', '\ufeff', '\ufffd', '\uffff', '\ud800', '\udfff',
  'é', 'ß', 'İ', 'ﬃ', 'Ω', '€', '😀', '👩‍👩‍👧', 'ＢＴＣ', '١٢٣', '日本',
];
export const junk: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...JUNK) },
  { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '9', '-', '%', '€', '😀', 'BTC-USDT,', '%zz', ' ', 'rsi_14,'), fc.integer({ min: 100, max: 3000 }))
      .map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)),
  },
);
/** `a` one time in `n`, null otherwise (fc.option is the reverse: null one time in `freq`). */
export const rarely = <T>(a: fc.Arbitrary<T>, n = 6): fc.Arbitrary<T | null> => fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: a });

/** Valid most of the time (so requests get past the first checks), near-valid or junk otherwise. */
export const mostly = (valid: fc.Arbitrary<string>, near?: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 14, arbitrary: valid }, ...(near ? [{ weight: 1, arbitrary: near }] : []), { weight: 1, arbitrary: junk });

export const VALID_SYMBOLS = ['BTC-USDT', 'btc-usdt', ' ETH-USDT ', 'SOL-USDT', 'BNB-USDT', 'XRP-USDT', 'NOPE-USDT', 'A-B', `${'X'.repeat(20)}-${'Y'.repeat(20)}`];
export const symbolV = mostly(
  fc.constantFrom(...VALID_SYMBOLS),
  fc.oneof(
    fc.constantFrom('BTCUSDT', 'BTC-', '-USDT', '-', 'BTC-USDT-PERP', `${'B'.repeat(21)}-USDT`, 'BTC_USDT', 'BTC/USDT', 'BTC--USDT', 'BTC-USDT\u0000', 'ＢＴＣ-USDT', 'BTC-ÜSDT'),
    fc.stringMatching(/^[A-Za-z0-9]{0,22}-[A-Za-z0-9]{0,22}$/),
  ),
);
export const exchangeV = mostly(fc.constantFrom('perp', 'spot', 'perp', 'spot', 'PERP', ' Spot '), fc.constantFrom('binance', 'perp,spot', 'perpetual', 'spot\u0000', 'ｐｅｒｐ', 'per p'));
export const timeframeV = mostly(fc.constantFrom(...TIMEFRAMES, 'funding'), fc.constantFrom('1M', '1H', ' 1h', '60m', '1w', '0m', '2h', '1d\u0000', 'FUNDING', '1h,4h'));
export const dataMs = fc.integer({ min: T0 - 30 * DAY, max: NOW + DAY });
export const TIME_EDGES = [
  '0', '00', '-1', '1', '9999999999999999', '99999999999999999', '253402300799999', '253402300800000', '1704067200000.5', '1.7e12', '0x1',
  ' 1704067200000', '1704067200000 ', '+1704067200000', '01704067200000', '1704067200',
  '2024-02-29', '2023-02-29', '2024-02-30', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-32', '2024-1-1', '20240101', '2024-01',
  '2024-01-01T24:00:00Z', '2024-01-01T23:60:00Z', '2024-01-01T23:59:60Z', '2024-01-01T00:00:00+24:00', '2024-01-01T00:00:00+23:59',
  '2024-01-01T00:00:00-00:00', '2024-01-01T00:00:00+0530', '2024-01-01T00:00:00+05', '2024-01-01 00:00', '2024-01-01T00:00:00.',
  '2024-01-01T00:00:00.1234567890Z', '2024-01-01t00:00:00z', '2024-01-01T00:00:00ZZ', '0000-01-01', '0070-01-01', '0099-12-31T23:59:59Z',
  '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z',
  '10000-01-01', 'now', 'today', 'Mon, 01 Jan 2024 00:00:00 GMT',
];
export const timeV = mostly(
  fc.oneof(
    { weight: 3, arbitrary: dataMs.map(String) },
    { weight: 3, arbitrary: dataMs.map(iso) },
    { weight: 2, arbitrary: fc.constantFrom(...TIME_EDGES) },
    { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(dataMs, fc.constantFrom('date', 'space', 'offset', 'lower', 'nanos', 'noZ'))
        .map(([ms, how]) => {
          const s = iso(ms);
          if (how === 'date') return s.slice(0, 10);
          if (how === 'space') return s.replace('T', ' ');
          if (how === 'offset') return s.replace('Z', '+05:30');
          if (how === 'lower') return s.toLowerCase();
          if (how === 'nanos') return s.replace('Z', '123456Z');
          return s.slice(0, 19);
        }),
    },
  ),
);
export const limitV = mostly(
  fc.oneof(fc.integer({ min: 1, max: 10_000 }).map(String), fc.constantFrom('1', '10000', '01', ' 10 ')),
  fc.oneof(fc.integer({ min: -5, max: 20_000 }).map(String), fc.constantFrom('10001', '0', '-0', '1.0', '1e3', '+5', '0x10', '9'.repeat(20), '9'.repeat(400), '١٠')),
);
export const boolV = mostly(fc.constantFrom('true', 'false', 'true '), fc.constantFrom('TRUE', 'True', '1', '0', 'yes', 'on'));
export const formatV = mostly(fc.constantFrom('json', 'csv', 'csv '), fc.constantFrom('CSV', 'Json', 'xml', 'text/csv'));
export const featureNameV = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FEATURES) },
  { weight: 1, arbitrary: fc.constantFrom('RSI_14', 'rsi_14 ', 'rsi', 'rsi_15', 'close', 'funding_rate', 'macd;', '*') },
  { weight: 1, arbitrary: junk },
);
export const listOf = (item: fc.Arbitrary<string>, max: number) =>
  fc.tuple(fc.array(item, { maxLength: max }), fc.constantFrom(',', ',', ', ', ',,', ';', ' ')).map(([a, sep]) => a.join(sep));
export const TECHNICAL = FEATURES.filter((f) => !/^(funding|premium)_/.test(f));
export const FUNDING_FEATURES = FEATURES.filter((f) => !TECHNICAL.includes(f));
export const featuresV = mostly(
  fc.oneof(
    { weight: 3, arbitrary: fc.subarray(TECHNICAL, { minLength: 1, maxLength: 5 }).map((a) => a.join(',')) },
    { weight: 2, arbitrary: fc.subarray(FUNDING_FEATURES, { minLength: 1 }).map((a) => a.join(',')) },
  ),
  listOf(featureNameV, 25),
);
export const symbolsV = mostly(fc.subarray(VALID_SYMBOLS, { minLength: 1, maxLength: 6 }).map((a) => a.join(',')), listOf(symbolV, 40));
export const fieldV = mostly(fc.constantFrom('open', 'high', 'low', 'close', 'volume', 'funding_rate', ...FEATURES, 'OPEN', 'time', 'symbol', 'close;', 'rate'));

export const ROUTE_PARAMS: Record<string, Record<string, fc.Arbitrary<string>>> = {
  '/v1/ohlcv': { symbol: symbolV, exchange: exchangeV, timeframe: timeframeV, start: timeV, end: timeV, limit: limitV, format: formatV },
  '/v1/funding': { symbol: symbolV, exchange: exchangeV, start: timeV, end: timeV, normalized: boolV, format: formatV },
  '/v1/derivatives': { symbol: symbolV, exchange: exchangeV, timeframe: timeframeV, start: timeV, end: timeV, limit: limitV, format: formatV },
  '/v1/features': { symbol: symbolV, exchange: exchangeV, timeframe: timeframeV, features: featuresV, start: timeV, end: timeV, format: formatV },
  '/v1/features/available': {},
  '/v1/multi-asset': { symbols: symbolsV, exchange: exchangeV, timeframe: timeframeV, field: fieldV, start: timeV, end: timeV, format: formatV },
  '/v1/quality': { symbol: symbolV, exchange: exchangeV, timeframe: timeframeV },
  '/v1/markets': { exchange: exchangeV },
  '/v1/auth/keys': {},
  '/health': {},
  // Public service routes (the document, its page) and /metrics.
  '/v1/openapi.json': {},
  '/docs': {},
  '/metrics': {},
};
export const ALL_PARAM_NAMES = [...new Set(Object.values(ROUTE_PARAMS).flatMap((p) => Object.keys(p)))];
export const paramNameV = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ALL_PARAM_NAMES) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('symbol[]', 'symbol[0]', 'symbols[]', 'start[gte]', 'SYMBOL', 'Start', ' start', '__proto__', 'constructor', 'hasOwnProperty', 'toString', '', '%', '%zz', 'a%00b', 'query', 'callback', 'key', 'api_key', 'x-api-key'),
  },
  { weight: 1, arbitrary: junk },
);

/** A valid request's parameters, coherent across them (venue, timeframe and names that go together). */
export const candleTf = fc.constantFrom(...TIMEFRAMES);
export const goodSymbol = fc.constantFrom(...VALID_SYMBOLS);
export const goodExchange = fc.constantFrom('perp', 'spot');
export const instantText = (ms: number, iso8601: boolean) => (iso8601 ? iso(ms) : String(ms));
/** start and end (end sometimes left out, sometimes before start). */
export const rangeV = fc
  .tuple(dataMs, fc.integer({ min: -HOUR, max: 40 * DAY }), fc.boolean(), fc.nat(5))
  .map(([start, length, iso8601, noEnd]): Array<[string, string]> => [
    ['start', instantText(start, iso8601)],
    ...(noEnd === 0 ? [] : [['end', instantText(start + length, iso8601)] as [string, string]]),
  ]);
export const formatPair = fc.constantFrom<Array<[string, string]>>([], [], [['format', 'json']], [['format', 'csv']]);
export const VALID_PARAMS: Record<string, fc.Arbitrary<Array<[string, string]>>> = {
  '/v1/ohlcv': fc
    .tuple(goodSymbol, goodExchange, candleTf, rangeV, fc.option(fc.integer({ min: 1, max: 10_000 }), { freq: 2 }), formatPair)
    .map(([symbol, exchange, timeframe, range, limit, format]) => [['symbol', symbol], ['exchange', exchange], ['timeframe', timeframe], ...range, ...(limit === null ? [] : [['limit', String(limit)] as [string, string]]), ...format]),
  '/v1/derivatives': fc
    .tuple(goodSymbol, candleTf, rangeV, fc.option(fc.integer({ min: 1, max: 10_000 }), { freq: 2 }), formatPair)
    .map(([symbol, timeframe, range, limit, format]) => [['symbol', symbol], ['exchange', 'perp'], ['timeframe', timeframe], ...range, ...(limit === null ? [] : [['limit', String(limit)] as [string, string]]), ...format]),
  '/v1/funding': fc
    .tuple(goodSymbol, rangeV, fc.constantFrom<Array<[string, string]>>([], [['normalized', 'true']], [['normalized', 'false']]), formatPair)
    .map(([symbol, range, normalized, format]) => [['symbol', symbol], ['exchange', 'perp'], ...range, ...normalized, ...format]),
  '/v1/features': fc
    .tuple(goodSymbol, fc.boolean(), rangeV, formatPair, fc.subarray(TECHNICAL, { minLength: 1, maxLength: 5 }), fc.subarray(FUNDING_FEATURES, { minLength: 1 }), candleTf, goodExchange)
    .map(([symbol, funding, range, format, technical, fundingNames, timeframe, exchange]) => [
      ['symbol', symbol], ['exchange', funding ? 'perp' : exchange], ['timeframe', funding ? 'funding' : timeframe], ['features', (funding ? fundingNames : technical).join(',')], ...range, ...format,
    ]),
  '/v1/multi-asset': fc
    .tuple(fc.subarray(VALID_SYMBOLS, { minLength: 1, maxLength: 5 }), rangeV, formatPair, fc.constantFrom('open', 'high', 'low', 'close', 'volume', ...TECHNICAL), candleTf, goodExchange, fc.nat(3))
    .map(([symbols, range, format, field, timeframe, exchange, hourly]) => [
      ['symbols', symbols.join(',')], ...(hourly === 0 ? [['exchange', 'perp'], ['timeframe', '1h'], ['field', 'funding_rate']] as Array<[string, string]> : [['exchange', exchange], ['timeframe', timeframe], ['field', field]] as Array<[string, string]>), ...range, ...format,
    ]),
  '/v1/quality': fc
    .tuple(goodSymbol, goodExchange, fc.option(candleTf, { freq: 3 }))
    .map(([symbol, exchange, timeframe]) => [['symbol', symbol], ['exchange', exchange], ...(timeframe === null ? [] : [['timeframe', timeframe] as [string, string]])]),
  '/v1/markets': fc.option(goodExchange, { freq: 2 }).map((e) => (e === null ? [] : [['exchange', e]])),
};

/** One change to a valid request: a parameter with another (plausible, near or junk) value, dropped, repeated, blank, or a stranger added. */
export const mutationV = (route: string) => {
  const specs = Object.entries(ROUTE_PARAMS[route]);
  const name = specs.length ? fc.constantFrom(...specs.map(([n]) => n)) : fc.constantFrom(...ALL_PARAM_NAMES);
  const valueOf = (n: string) => ROUTE_PARAMS[route][n] ?? junk;
  return fc.oneof(
    { weight: 5, arbitrary: name.chain((n) => fc.tuple(fc.constant('replace' as const), fc.constant(n), valueOf(n))) },
    { weight: 1, arbitrary: fc.tuple(fc.constant('drop' as const), name, fc.constant('')) },
    { weight: 1, arbitrary: name.chain((n) => fc.tuple(fc.constant('repeat' as const), fc.constant(n), fc.oneof(valueOf(n), junk))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('blank' as const, 'noname' as const), name, junk) },
    { weight: 2, arbitrary: fc.tuple(fc.constant('stranger' as const), paramNameV, junk) },
  );
};

/**
 * A query string for `route`: a valid request with none to three mutations, each pair
 * percent-encoded or sent raw (so `%`, `&`, `=`, `+` and junk escapes reach the parser).
 */
export function queryFor(route: string): fc.Arbitrary<string> {
  const mutations = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.constant(3) });
  return fc
    .tuple(VALID_PARAMS[route] ?? fc.constant([]), mutations.chain((n) => fc.array(mutationV(route), { minLength: n, maxLength: n })), fc.array(fc.nat(9), { minLength: 12, maxLength: 12 }), fc.boolean())
    .map(([valid, muts, modes, reverse]) => {
      let pairs: Array<{ name: string; value: string; how: 'pair' | 'blank' | 'noname' }> = valid.map(([name, value]) => ({ name, value, how: 'pair' }));
      for (const [kind, name, value] of muts) {
        if (kind === 'replace') pairs = [...pairs.filter((p) => p.name !== name), { name, value, how: 'pair' }];
        else if (kind === 'drop') pairs = pairs.filter((p) => p.name !== name);
        else if (kind === 'repeat' || kind === 'stranger') pairs.push({ name, value, how: 'pair' });
        else pairs = [...pairs.filter((p) => p.name !== name), { name, value, how: kind }];
      }
      if (reverse) pairs.reverse();
      return pairs
        .map((p, i) => {
          const e = (x: string) => pct(x, modes[i % modes.length] < 2 ? RAW : UNRESERVED);
          return p.how === 'blank' ? e(p.name) : p.how === 'noname' ? `=${e(p.value)}` : `${e(p.name)}=${e(p.value)}`;
        })
        .join(modes[11] === 0 ? ';' : '&');
    });
}

