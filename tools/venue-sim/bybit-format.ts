/**
 * Bybit v5's wire formats (its recorded answers: test/fixtures/venues/bybit-perp-recorded.json):
 * every decimal and every REST time a string; klines and the kline stream trim trailing zeros
 * ("43488", "43376.1"), tickers keep the contract's price scale ("51444.40"); rates up to 8
 * decimals trimmed ("0.0001", "-0.00046295"); open interest history with 8 places. A contract's
 * tick and lot follow its price, as Bybit's instruments do (BTC 0.10 and 0.001, ETH 0.01 and 0.01).
 */
import type { RawContext } from './context-model';
import { perpPriceOf, type RawCandle } from './price-model';
import type { CandleFrame, SimCandle } from './wire-format';

/** A contract's tick, lot and limits as instruments-info states them. */
export interface BybitContract {
  priceScale: number;
  /** Decimals of the tick (BTC's tick is 0.1, written "0.10" at price scale 2). */
  tickDecimals: number;
  qtyDecimals: number;
  maxLeverage: string;
  maxPrice: number;
  maxOrderQty: number;
}

const TIERS: Array<{ from: number } & BybitContract> = [
  { from: 10_000, priceScale: 2, tickDecimals: 1, qtyDecimals: 3, maxLeverage: '100.00', maxPrice: 199_999.8, maxOrderQty: 100 },
  { from: 1_000, priceScale: 2, tickDecimals: 2, qtyDecimals: 2, maxLeverage: '100.00', maxPrice: 19_999.98, maxOrderQty: 1_000 },
  { from: 10, priceScale: 3, tickDecimals: 3, qtyDecimals: 1, maxLeverage: '50.00', maxPrice: 1_999.998, maxOrderQty: 10_000 },
  { from: 0, priceScale: 4, tickDecimals: 4, qtyDecimals: 0, maxLeverage: '25.00', maxPrice: 199.9998, maxOrderQty: 100_000 },
];
const contracts = new Map<string, BybitContract>();

/** The coin's contract, fixed by its modelled price at the epoch so that every answer agrees on it. */
export function contractOf(coin: string): BybitContract {
  let c = contracts.get(coin);
  if (c === undefined) {
    const price = perpPriceOf(coin, 0);
    c = TIERS.find((t) => price >= t.from)!;
    contracts.set(coin, c);
  }
  return c;
}

/** Fixed decimals with the trailing zeros (and a bare point) dropped; never "-0". */
export function plain(x: number, decimals: number): string {
  const s = x.toFixed(decimals);
  const t = s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  return t === '-0' ? '0' : t;
}

const onTick = (c: BybitContract, x: number) => Math.round(x * 10 ** c.tickDecimals) / 10 ** c.tickDecimals;
/** A traded price on the tick, trimmed (klines). */
const tradedPrice = (c: BybitContract, x: number) => plain(onTick(c, x), c.tickDecimals);
/** A price at the contract's scale (tickers: "51444.40"); `tick` rounds it onto the tick first. */
export const scaledPrice = (c: BybitContract, x: number, tick = true) => (tick ? onTick(c, x) : x).toFixed(c.priceScale);
export const bybitQuantity = (c: BybitContract, x: number) => plain(x, c.qtyDecimals);
export const bybitRate = (x: number) => plain(x, 8);
/** Quote turnover: 4 decimals, trimmed ("68345898.1407"). */
const turnover = (x: number) => plain(x, 4);

export const turnoverOf = (c: RawCandle) => (c.volume * (c.open + c.close)) / 2;

export function bybitValues(coin: string, c: RawCandle): SimCandle & { turnover: string } {
  const k = contractOf(coin);
  return {
    open: tradedPrice(k, c.open),
    high: tradedPrice(k, c.high),
    low: tradedPrice(k, c.low),
    close: tradedPrice(k, c.close),
    volume: bybitQuantity(k, c.volume),
    turnover: turnover(turnoverOf(c)),
  };
}

/** A row of GET /v5/market/kline: [startTime, open, high, low, close, volume, turnover], all strings. */
export function bybitKline(f: CandleFrame, coin: string, c: RawCandle): string[] {
  const v = bybitValues(coin, c);
  return [String(f.openTime), v.open, v.high, v.low, v.close, v.volume, v.turnover];
}

/** A candle of the kline.<interval>.<symbol> topic, in the recorded key order. */
export function bybitStreamKline(f: CandleFrame, coin: string, c: RawCandle, confirm: boolean, timestamp: number): Record<string, unknown> {
  const v = bybitValues(coin, c);
  return { start: f.openTime, end: f.closeTime, interval: f.interval, open: v.open, close: v.close, high: v.high, low: v.low, volume: v.volume, turnover: v.turnover, confirm, timestamp };
}

/** A mark- or index-price kline row: [startTime, open, high, low, close], trimmed as the docs' example. */
export function bybitPriceKline(coin: string, openTime: number, prices: readonly number[]): string[] {
  const k = contractOf(coin);
  const text = (x: number) => plain(x, k.priceScale);
  return [String(openTime), text(prices[0]), text(Math.max(...prices)), text(Math.min(...prices)), text(prices[prices.length - 1])];
}

/** A premium-index-price-kline row: 6 decimals, as the docs' example ("-0.000587"). */
export function bybitPremiumKline(openTime: number, premiums: readonly number[]): string[] {
  const text = (x: number) => (Math.abs(x) < 5e-7 ? 0 : x).toFixed(6);
  return [String(openTime), text(premiums[0]), text(Math.max(...premiums)), text(Math.min(...premiums)), text(premiums[premiums.length - 1])];
}

export const bybitFunding = (symbol: string, f: { time: number; rate: number }) => ({ symbol, fundingRate: bybitRate(f.rate), fundingRateTimestamp: String(f.time) });

/** An open-interest row: both sides and one side on the lot, with 8 places ("62129.45500000") and as the lot. */
export function bybitOpenInterest(coin: string, c: RawContext, t: number): { openInterest: string; singleOpenInterest: string; timestamp: string } {
  const k = contractOf(coin);
  return { openInterest: Number(bybitQuantity(k, 2 * c.openInterest)).toFixed(8), singleOpenInterest: bybitQuantity(k, c.openInterest), timestamp: String(t) };
}

/** One instruments-info entry, in the order Bybit sends its keys. */
export function bybitInstrument(i: { symbol: string; coin: string; contractType: string; status: string; launchTime: number; deliveryTime: number; fundingMinutes: number }) {
  const k = contractOf(i.coin);
  const tick = (10 ** -k.tickDecimals).toFixed(k.priceScale);
  const lot = (10 ** -k.qtyDecimals).toFixed(k.qtyDecimals);
  return {
    symbol: i.symbol,
    contractType: i.contractType,
    status: i.status,
    baseCoin: i.coin,
    quoteCoin: 'USDT',
    launchTime: String(i.launchTime),
    deliveryTime: String(i.deliveryTime),
    deliveryFeeRate: i.deliveryTime === 0 ? '' : '0.0005',
    priceScale: String(k.priceScale),
    leverageFilter: { minLeverage: '1', maxLeverage: k.maxLeverage, leverageStep: '0.01' },
    priceFilter: { minPrice: tick, maxPrice: k.maxPrice.toFixed(k.priceScale), tickSize: tick },
    lotSizeFilter: {
      maxOrderQty: k.maxOrderQty.toFixed(k.qtyDecimals),
      minOrderQty: lot,
      qtyStep: lot,
      postOnlyMaxOrderQty: (k.maxOrderQty * 10).toFixed(k.qtyDecimals),
      maxMktOrderQty: (k.maxOrderQty / 2).toFixed(k.qtyDecimals),
      minNotionalValue: '5',
    },
    unifiedMarginTrade: true,
    fundingInterval: i.fundingMinutes,
    settleCoin: 'USDT',
    copyTrading: 'both',
    upperFundingRate: i.fundingMinutes === 0 ? '' : '0.005',
    lowerFundingRate: i.fundingMinutes === 0 ? '' : '-0.005',
  };
}
