/**
 * Binance USD-M's public REST under {base}/fapi (real base: https://fapi.binance.com), in its
 * recorded formats and with its quirks: klines 1,500 a page with the still-open candle;
 * fundingRate 1,000 a page, stamped 0-13 ms after the hour; fundingInfo lists only symbols
 * whose interval was changed; premiumIndex, openInterest, bookTicker, 1m premium, mark and index
 * klines (the open one partial) and 30 days of 5-minute openInterestHist. Weight per minute 2,400, 429 with Retry-After, then 418 bans: as
 * Binance spot (binance-rest.ts).
 */
import { BinanceRest, isAnswer, klineQuery, klines, rangeOf, type Routes } from './binance-rest';
import { modelContext, samplesOf, type SampledValue } from './context-model';
import { coinOf } from './venues';
import { jsonAnswer, type Answer, type SimContext } from './rest';
import { usdmBookTicker, usdmFunding, usdmOpenInterest, usdmOpenInterestHist, usdmPremiumIndex, usdmPremiumKline, usdmPriceKline } from './wire-format';

const HOUR = 3_600_000;
const MINUTE = 60_000;

function fundingRate(ctx: SimContext, q: URLSearchParams): Answer {
  const k = klineQuery(ctx, 'binance-perp', q, 1_000, { interval: false });
  if (isAnswer(k)) return k;
  const coin = coinOf('binance-perp', k.symbol);
  const now = ctx.market.now();
  const from = k.startTime ?? (k.endTime ?? now) - 100 * 8 * HOUR;
  const rows = ctx.market.perpFundings('binance-perp', coin, from, k.endTime ?? now, k.startTime === null ? 1_000 : k.limit);
  const page = k.startTime === null ? rows.slice(-k.limit) : rows;
  return jsonAnswer(200, page.map((f) => usdmFunding(k.symbol, f, modelContext(coin, f.time).markPrice)));
}

function fundingInfo(ctx: SimContext): Answer {
  const now = ctx.market.now();
  const rows = ctx.market
    .instruments('binance-perp')
    .filter((s) => ctx.market.perpInterval('binance-perp', coinOf('binance-perp', s), now).changed)
    .map((symbol) => ({
      symbol,
      adjustedFundingRateCap: '0.02000000',
      adjustedFundingRateFloor: '-0.02000000',
      fundingIntervalHours: ctx.market.perpInterval('binance-perp', coinOf('binance-perp', symbol), now).hours,
      disclaimer: false,
      updateTime: now - (now % HOUR),
    }));
  return jsonAnswer(200, rows);
}

function exchangeInfo(ctx: SimContext): Answer {
  const now = ctx.market.now();
  const perpetual = (symbol: string) => ({ symbol, pair: symbol, contractType: 'PERPETUAL', status: 'TRADING', baseAsset: coinOf('binance-perp', symbol), quoteAsset: 'USDT' });
  return jsonAnswer(200, {
    timezone: 'UTC',
    serverTime: now,
    futuresType: 'U_MARGINED',
    rateLimits: [{ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: ctx.weights['binance-perp'].limit }],
    exchangeFilters: [],
    // As recorded: quarterly contracts and a pending listing beside the perpetuals.
    symbols: [
      ...ctx.market.instruments('binance-perp').map(perpetual),
      { symbol: 'BTCUSDT_261225', pair: 'BTCUSDT', contractType: 'CURRENT_QUARTER', status: 'TRADING', baseAsset: 'BTC', quoteAsset: 'USDT' },
      { symbol: 'NEWUSDT', pair: 'NEWUSDT', contractType: '', status: 'PENDING_TRADING', baseAsset: 'NEW', quoteAsset: 'USDT' },
    ],
  });
}

/** A symbol's context answer at now, or the venue's refusal. */
function contextRoute(answer: (symbol: string, coin: string, now: number, ctx: SimContext) => unknown) {
  return (ctx: SimContext, q: URLSearchParams): Answer => {
    const k = klineQuery(ctx, 'binance-perp', q, 1_500, { interval: false });
    if (isAnswer(k)) return k;
    const now = ctx.market.now();
    return jsonAnswer(200, answer(k.symbol, coinOf('binance-perp', k.symbol), now, ctx));
  };
}

/**
 * Minute klines of a modelled value (premium, mark or index): sampled each 5 s of the minute (so
 * far, while open), written by `row` ("0" volumes and the sample count); the index is asked by `pair`.
 */
function sampledKlines(of: SampledValue, row: (open: number, samples: readonly number[]) => unknown[], symbolParam: 'symbol' | 'pair' = 'symbol') {
  return (ctx: SimContext, q: URLSearchParams): Answer => {
    const asked = new URLSearchParams(q);
    if (symbolParam === 'pair') {
      if (!q.get('pair')) return jsonAnswer(400, { code: -1102, msg: "Mandatory parameter 'pair' was not sent, was empty/null, or malformed." });
      asked.set('symbol', q.get('pair')!);
    }
    const k = klineQuery(ctx, 'binance-perp', asked, 1_500);
    if (isAnswer(k)) return k;
    const coin = coinOf('binance-perp', k.symbol);
    const now = ctx.market.now();
    const opens = ctx.market.openTimes('binance-perp', k.symbol, k.interval!, rangeOf(k.startTime, k.endTime, k.limit, now)).filter(() => k.interval!.name === '1m');
    return jsonAnswer(
      200,
      opens.map((open) => row(open, samplesOf(coin, of, open, open + MINUTE, now))),
    );
  };
}

/**
 * Open interest per 5 minutes, the last 30 days only, integer `timestamp` (the moment of the
 * value); a range longer than `limit` answers its latest rows.
 */
function openInterestHist(ctx: SimContext, q: URLSearchParams): Answer {
  const k = klineQuery(ctx, 'binance-perp', q, 500, { interval: false });
  if (isAnswer(k)) return k;
  if (q.get('period') !== '5m') return jsonAnswer(400, { code: -1130, msg: 'Data sent for parameter \'period\' is not valid.' });
  const coin = coinOf('binance-perp', k.symbol);
  const now = ctx.market.now();
  const limit = q.get('limit') === null ? 30 : k.limit;
  const oldest = Math.ceil((now - 30 * 24 * HOUR) / (5 * MINUTE)) * 5 * MINUTE;
  const last = Math.floor(Math.min(k.endTime ?? now, now) / (5 * MINUTE)) * 5 * MINUTE;
  const first = Math.max(oldest, k.startTime === null ? last - (limit - 1) * 5 * MINUTE : Math.ceil(k.startTime / (5 * MINUTE)) * 5 * MINUTE);
  const stamps: number[] = [];
  for (let t = Math.max(first, last - (limit - 1) * 5 * MINUTE); t <= last; t += 5 * MINUTE) stamps.push(t);
  return jsonAnswer(200, stamps.map((t) => usdmOpenInterestHist(k.symbol, modelContext(coin, t), t)));
}

const ROUTES: Routes = {
  '/fapi/v1/exchangeInfo': { weight: 1, answer: exchangeInfo },
  '/fapi/v1/klines': { weight: 10, answer: klines('binance-perp', 1_500) },
  '/fapi/v1/fundingRate': { weight: 1, answer: fundingRate },
  '/fapi/v1/fundingInfo': { weight: 1, answer: fundingInfo },
  '/fapi/v1/premiumIndex': {
    weight: 1,
    answer: contextRoute((symbol, coin, now, ctx) => usdmPremiumIndex(symbol, modelContext(coin, now), now, ctx.market.nextSettlement('binance-perp', coin, now))),
  },
  '/fapi/v1/openInterest': { weight: 1, answer: contextRoute((symbol, coin, now) => usdmOpenInterest(symbol, modelContext(coin, now), now)) },
  '/fapi/v1/ticker/bookTicker': { weight: 2, answer: contextRoute((symbol, coin, now) => usdmBookTicker(symbol, modelContext(coin, now), now)) },
  '/fapi/v1/premiumIndexKlines': { weight: 1, answer: sampledKlines('premium', usdmPremiumKline) },
  '/fapi/v1/markPriceKlines': { weight: 10, answer: sampledKlines('markPrice', usdmPriceKline) },
  '/fapi/v1/indexPriceKlines': { weight: 10, answer: sampledKlines('oraclePrice', usdmPriceKline, 'pair') },
  '/futures/data/openInterestHist': { weight: 1, answer: openInterestHist },
  '/fapi/v1/ping': { weight: 1, answer: () => jsonAnswer(200, {}) },
  '/fapi/v1/time': { weight: 1, answer: (ctx) => jsonAnswer(200, { serverTime: ctx.market.now() }) },
};

export const binancePerpRest = (ctx: SimContext) => new BinanceRest(ctx, 'binance-perp', ROUTES);
