/**
 * The venues' wire formats for candles, funding and the perpetual context, decimals as strings:
 * - Hyperliquid: prices to 5 significant figures (at most 6 decimals), sizes to the coin's
 *   szDecimals, no trailing zeros but one decimal at least ("60123.0"), rates to 10 decimals;
 *   candles {t,T,s,i,o,c,h,l,v,n}, asset contexts {funding, openInterest, ..., markPx, midPx}.
 * - Binance: 8 decimals on every decimal ("60123.45000000"), prices on the 0.01 tick (finer for
 *   cheap coins), quantities on 0.00001; klines as 12-element arrays, events as {e,E,s,k:{...}}.
 */
import type { RawContext } from './context-model';
import type { RawCandle, RawFunding } from './price-model';

/** A candle as the venue prints it. */
export interface SimCandle {
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

/** Where a candle sits: instrument, interval name, open and close times as sent. */
export interface CandleFrame {
  instrument: string;
  interval: string;
  openTime: number;
  closeTime: number;
}

const SZ_DECIMALS: Record<string, number> = { BTC: 5, ETH: 4 };

/** The size decimals Hyperliquid lists for a coin in its meta. */
export const szDecimalsOf = (coin: string) => SZ_DECIMALS[coin] ?? 2;

/** Fixed decimals, trailing zeros dropped, at least one decimal kept: "1.50" → "1.5", "3.00" → "3.0". */
function trimmed(x: number, decimals: number): string {
  const s = x.toFixed(decimals);
  if (!s.includes('.')) return Number(s) === 0 ? '0.0' : `${s}.0`;
  const t = s.replace(/0+$/, '');
  const out = t.endsWith('.') ? `${t}0` : t;
  return Number(out) === 0 ? '0.0' : out;
}

function hyperliquidPrice(x: number): string {
  const integerDigits = Math.floor(Math.log10(x)) + 1;
  return trimmed(x, Math.min(6, Math.max(0, 5 - integerDigits)));
}

const ZEROS = ['', '0', '00', '000', '0000', '00000', '000000', '0000000', '00000000'];
/** Past this, x * 10^8 is no longer an exact integer in a double. */
const EXACT_LIMIT = 2 ** 53 / 1e8;

/**
 * Binance's 8-decimal strings, rounded first to `decimals` (x >= 0). Integer arithmetic rather
 * than toFixed: formatting is most of the cost of a kline, and a benchmark asks for millions.
 */
function binanceDecimal(x: number, decimals: number): string {
  if (x >= EXACT_LIMIT) return x.toFixed(decimals) + ZEROS[8 - decimals];
  const scale = 10 ** decimals;
  const n = Math.round(x * scale);
  const whole = Math.floor(n / scale);
  const fraction = String(n - whole * scale);
  return `${whole}.${ZEROS[decimals - fraction.length]}${fraction}${ZEROS[8 - decimals]}`;
}

const binancePrice = (x: number) => binanceDecimal(x, x >= 10 ? 2 : x >= 0.1 ? 4 : 8);
const binanceQuantity = (x: number) => binanceDecimal(x, 5);

export function hyperliquidValues(coin: string, c: RawCandle): SimCandle {
  return {
    open: hyperliquidPrice(c.open),
    high: hyperliquidPrice(c.high),
    low: hyperliquidPrice(c.low),
    close: hyperliquidPrice(c.close),
    volume: trimmed(c.volume, szDecimalsOf(coin)),
  };
}

export function binanceValues(c: RawCandle): SimCandle {
  return {
    open: binancePrice(c.open),
    high: binancePrice(c.high),
    low: binancePrice(c.low),
    close: binancePrice(c.close),
    volume: binanceQuantity(c.volume),
  };
}

/** Hyperliquid's candle object (candleSnapshot rows and the `candle` channel's data). */
export function hyperliquidCandle(f: CandleFrame, coin: string, c: RawCandle): Record<string, unknown> {
  const v = hyperliquidValues(coin, c);
  return { t: f.openTime, T: f.closeTime, s: f.instrument, i: f.interval, o: v.open, c: v.close, h: v.high, l: v.low, v: v.volume, n: c.trades };
}

function quoteColumns(c: RawCandle) {
  const mid = (c.open + c.close) / 2;
  const takerBase = c.volume * c.takerShare;
  return { quote: binanceDecimal(c.volume * mid, 8), takerBase: binanceQuantity(takerBase), takerQuote: binanceDecimal(takerBase * mid, 8) };
}

/** A row of GET /api/v3/klines. */
export function binanceKline(f: CandleFrame, c: RawCandle): unknown[] {
  const v = binanceValues(c);
  const q = quoteColumns(c);
  return [f.openTime, v.open, v.high, v.low, v.close, v.volume, f.closeTime, q.quote, c.trades, q.takerBase, q.takerQuote, '0'];
}

/** Trade ids: a block per minute, so ids grow with time and never overlap between candles. */
function tradeIds(openTime: number, trades: number): { first: number; last: number } {
  if (trades === 0) return { first: -1, last: -1 };
  const first = Math.floor(openTime / 60_000) * 100_000;
  return { first, last: first + trades - 1 };
}

/** The `k` object of a kline stream event. */
export function binanceStreamKline(f: CandleFrame, c: RawCandle, closed: boolean): Record<string, unknown> {
  const v = binanceValues(c);
  const q = quoteColumns(c);
  const ids = tradeIds(f.openTime, c.trades);
  return {
    t: f.openTime, T: f.closeTime, s: f.instrument, i: f.interval, f: ids.first, L: ids.last,
    o: v.open, c: v.close, h: v.high, l: v.low, v: v.volume, n: c.trades, x: closed,
    q: q.quote, V: q.takerBase, Q: q.takerQuote, B: '0',
  };
}

/** A fundingHistory row. */
export function hyperliquidFunding(coin: string, f: RawFunding): Record<string, unknown> {
  return { coin, fundingRate: trimmed(f.rate, 8), premium: trimmed(f.premium, 8), time: f.time };
}

export const fundingRateText = (f: RawFunding) => trimmed(f.rate, 8);

/** A context's values as Hyperliquid prints them. */
export interface SimContextValues {
  openInterest: string;
  markPx: string;
  oraclePx: string;
  midPx: string;
  funding: string;
  premium: string;
}

export function hyperliquidContextValues(coin: string, c: RawContext): SimContextValues {
  return {
    openInterest: trimmed(c.openInterest, szDecimalsOf(coin)),
    markPx: hyperliquidPrice(c.markPrice),
    oraclePx: hyperliquidPrice(c.oraclePrice),
    midPx: hyperliquidPrice(c.midPrice),
    funding: trimmed(c.fundingRate, 10),
    premium: trimmed(c.premium, 10),
  };
}

/** An asset context (`metaAndAssetCtxs` element, `activeAssetCtx`'s `ctx`), the fields in traffic's order. */
export function hyperliquidContext(coin: string, c: RawContext): Record<string, unknown> {
  const v = hyperliquidContextValues(coin, c);
  const notional = c.openInterest * c.markPrice * 0.4;
  return {
    funding: v.funding,
    openInterest: v.openInterest,
    prevDayPx: hyperliquidPrice(c.markPrice * 0.99),
    dayNtlVlm: trimmed(notional, 4),
    premium: v.premium,
    oraclePx: v.oraclePx,
    markPx: v.markPx,
    midPx: v.midPx,
    impactPxs: [hyperliquidPrice(c.midPrice * 0.99995), hyperliquidPrice(c.midPrice * 1.00005)],
    dayBaseVlm: trimmed(notional / c.markPrice, szDecimalsOf(coin)),
  };
}

/**
 * Binance USD-M's formats (its recorded answers: test/fixtures/venues/binance-perp-recorded.json):
 * prices on the contract's tick ("63043.40", 8 decimals in premiumIndex), quantities to 3
 * decimals, rates to 8, times as integers.
 */
const usdmPrice = (x: number) => x.toFixed(x >= 10 ? 2 : x >= 0.1 ? 4 : 6);
const usdmQuantity = (x: number) => x.toFixed(3);
export const usdmRate = (x: number) => x.toFixed(8);

/** A fundingRate row, its keys in the recorded order; 2026 rows carry rateType. */
export function usdmFunding(symbol: string, f: RawFunding, markPrice: number): Record<string, unknown> {
  return { symbol, fundingTime: f.time, fundingRate: usdmRate(f.rate), markPrice: markPrice.toFixed(8), rateType: 'Regular' };
}

/** GET /fapi/v1/premiumIndex of a symbol at `t`. */
export function usdmPremiumIndex(symbol: string, c: RawContext, t: number, nextFundingTime: number): Record<string, unknown> {
  return {
    symbol,
    markPrice: c.markPrice.toFixed(8),
    indexPrice: c.oraclePrice.toFixed(8),
    estimatedSettlePrice: c.oraclePrice.toFixed(8),
    lastFundingRate: usdmRate(c.fundingRate),
    interestRate: '0.00010000',
    nextFundingTime,
    time: t,
  };
}

/** A `<s>@markPrice@1s` event: keys in the recorded order (P before i). */
export function usdmMarkPriceEvent(symbol: string, c: RawContext, t: number, nextFundingTime: number): Record<string, unknown> {
  return { e: 'markPriceUpdate', E: t, s: symbol, p: c.markPrice.toFixed(8), P: c.oraclePrice.toFixed(8), i: c.oraclePrice.toFixed(8), r: usdmRate(c.fundingRate), T: nextFundingTime };
}

export const usdmOpenInterest = (symbol: string, c: RawContext, t: number) => ({ symbol, openInterest: usdmQuantity(c.openInterest), time: t });

/** The book's best bid and ask around the mid; lastUpdateId last, as recorded. */
export function usdmBookTicker(symbol: string, c: RawContext, t: number): Record<string, unknown> {
  const half = c.midPrice * 0.00001;
  return { symbol, bidPrice: usdmPrice(c.midPrice - half), bidQty: '1.250', askPrice: usdmPrice(c.midPrice + half), askQty: '0.870', time: t, lastUpdateId: Math.floor(t / 10) };
}

/** A markPriceKlines or indexPriceKlines row: the price's open/high/low/close, "0" volumes and the sample count (partial while open). */
export function usdmPriceKline(openTime: number, prices: readonly number[]): unknown[] {
  return [openTime, usdmPrice(prices[0]), usdmPrice(Math.max(...prices)), usdmPrice(Math.min(...prices)), usdmPrice(prices[prices.length - 1]), '0', openTime + 59_999, '0', prices.length, '0', '0', '0'];
}

/** An openInterestHist row as recorded: decimals with 8 places, the circulating supply, an integer timestamp. */
export function usdmOpenInterestHist(symbol: string, c: RawContext, t: number): Record<string, unknown> {
  return {
    symbol,
    sumOpenInterest: c.openInterest.toFixed(8),
    sumOpenInterestValue: (c.openInterest * c.markPrice).toFixed(8),
    CMCCirculatingSupply: '20070287.00000000',
    timestamp: t,
  };
}

/** A premiumIndexKlines row: the premium's open/high/low/close, "0" volumes and the sample count (partial while open). */
export function usdmPremiumKline(openTime: number, premiums: readonly number[]): unknown[] {
  const text = premiums.map((p) => p.toFixed(8));
  return [openTime, text[0], usdmRate(Math.max(...premiums)), usdmRate(Math.min(...premiums)), text[text.length - 1], '0', openTime + 59_999, '0', premiums.length, '0', '0', '0'];
}
