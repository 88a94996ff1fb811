/**
 * Bybit's linear ticker at a moment, a pure function of (symbol, time) and the venue's funding
 * interval, so a client merging the tickers stream's deltas can be checked against it: mark,
 * index (the oracle), open interest and predicted rate from the context model (as USD-M's
 * markPrice stream), best bid and ask one tick apart around the mid, the last price and 24-hour
 * figures from Bybit's own candles (the last 24 hourly ones, the current one partial).
 */
import { contractOf, bybitQuantity, bybitRate, scaledPrice, turnoverOf } from './bybit-format';
import { modelContext } from './context-model';
import type { Interval } from './intervals';
import type { SimMarket } from './market';
import { drawOf } from './price-model';
import { coinOf } from './venues';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The tickers stream's fields, in the recorded snapshot's order. */
export const STREAM_TICKER_KEYS = [
  'symbol', 'tickDirection', 'price24hPcnt', 'lastPrice', 'prevPrice24h', 'highPrice24h', 'lowPrice24h', 'prevPrice1h', 'markPrice', 'indexPrice',
  'openInterest', 'singleOpenInterest', 'openInterestValue', 'singleOpenInterestValue', 'turnover24h', 'volume24h', 'nextFundingTime', 'fundingRate', 'bid1Price', 'bid1Size', 'ask1Price', 'ask1Size',
] as const;

export type BybitTicker = Record<(typeof STREAM_TICKER_KEYS)[number], string>;

/** The candle of `interval` containing `t` as it stood at `t`. */
function candleAt(market: SimMarket, symbol: string, interval: Interval, t: number) {
  const open = interval.floor(t);
  return market.values('bybit', symbol, interval, open, (t - open) / (interval.add(open, 1) - open));
}

export function bybitTicker(market: SimMarket, symbol: string, t: number): BybitTicker {
  const coin = coinOf('bybit', symbol);
  const k = contractOf(coin);
  const c = modelContext(coin, t);
  const minute = market.interval('bybit', '1')!;
  const hour = market.interval('bybit', '60')!;
  const last = candleAt(market, symbol, minute, t).close;
  const before = candleAt(market, symbol, minute, t - 1_000).close;
  const priceAt = (ms: number) => market.values('bybit', symbol, minute, minute.floor(ms), 0).open;
  const prev24h = priceAt(t - DAY);
  let high = last;
  let low = last;
  let volume = 0;
  let quote = 0;
  for (let h = hour.floor(t) - 23 * HOUR; h <= t; h += HOUR) {
    const candle = market.values('bybit', symbol, hour, h, Math.min(1, (t - h) / HOUR));
    high = Math.max(high, candle.high);
    low = Math.min(low, candle.low);
    volume += candle.volume;
    quote += turnoverOf(candle);
  }
  const tick = 10 ** -k.tickDecimals;
  const bid = Math.floor(c.midPrice / tick) * tick;
  const second = Math.floor(t / 1000);
  const size = (salt: number) => bybitQuantity(k, (20_000 + 300_000 * drawOf(coin, salt, second)) / c.midPrice);
  const move = Number(scaledPrice(k, last)) - Number(scaledPrice(k, before));
  return {
    symbol,
    tickDirection: move > 0 ? 'PlusTick' : move < 0 ? 'MinusTick' : 'ZeroPlusTick',
    price24hPcnt: (last / prev24h - 1).toFixed(6),
    lastPrice: scaledPrice(k, last),
    prevPrice24h: scaledPrice(k, prev24h),
    highPrice24h: scaledPrice(k, high),
    lowPrice24h: scaledPrice(k, low),
    prevPrice1h: scaledPrice(k, priceAt(t - HOUR)),
    markPrice: scaledPrice(k, c.markPrice, false),
    indexPrice: scaledPrice(k, c.oraclePrice, false),
    // Both sides since the venue's 2026 change; one side (the other venues' measure) in `single*`.
    openInterest: bybitQuantity(k, 2 * c.openInterest),
    singleOpenInterest: bybitQuantity(k, c.openInterest),
    openInterestValue: (2 * c.openInterest * c.markPrice).toFixed(2),
    singleOpenInterestValue: (c.openInterest * c.markPrice).toFixed(2),
    turnover24h: quote.toFixed(4),
    volume24h: volume.toFixed(4),
    nextFundingTime: String(market.nextSettlement('bybit', coin, t)),
    fundingRate: bybitRate(c.fundingRate),
    bid1Price: scaledPrice(k, bid),
    bid1Size: size(0x3a2b1c0d),
    ask1Price: scaledPrice(k, bid + tick),
    ask1Size: size(0x0d1c2b3a),
  };
}

/** GET /v5/market/tickers' entry: the same values in the recorded REST order, with the delivery fields a perpetual leaves empty. */
export function bybitRestTicker(v: BybitTicker): Record<string, string> {
  return {
    symbol: v.symbol, lastPrice: v.lastPrice, indexPrice: v.indexPrice, markPrice: v.markPrice, prevPrice24h: v.prevPrice24h,
    price24hPcnt: v.price24hPcnt, highPrice24h: v.highPrice24h, lowPrice24h: v.lowPrice24h, prevPrice1h: v.prevPrice1h,
    openInterest: v.openInterest, singleOpenInterest: v.singleOpenInterest, openInterestValue: v.openInterestValue,
    singleOpenInterestValue: v.singleOpenInterestValue, turnover24h: v.turnover24h, volume24h: v.volume24h,
    fundingRate: v.fundingRate, nextFundingTime: v.nextFundingTime, predictedDeliveryPrice: '', basisRate: '', deliveryFeeRate: '',
    deliveryTime: '0', ask1Size: v.ask1Size, bid1Price: v.bid1Price, ask1Price: v.ask1Price, bid1Size: v.bid1Size, basis: '',
  };
}

/** The fields whose text differs from `before`, with the symbol (a tickers delta's data), or null when none does. */
export function tickerDelta(before: BybitTicker, now: BybitTicker): Record<string, string> | null {
  const changed = STREAM_TICKER_KEYS.filter((key) => key !== 'symbol' && before[key] !== now[key]);
  if (changed.length === 0) return null;
  return Object.fromEntries([['symbol', now.symbol], ...changed.map((key) => [key, now[key]])]);
}
