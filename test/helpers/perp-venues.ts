/**
 * The simulated perpetual venues that settle at intervals (Binance USD-M, Bybit), as the ingest
 * tests drive each one the same way: its exchange, its simulator venue and instruments option,
 * its interval switch and how it stamps a settlement.
 */
import type { VenueSimulator } from '../../tools/venue-sim';
import type { SimVenue } from '../../tools/venue-sim/venues';

export interface PerpVenueCase {
  exchange: string;
  venue: SimVenue;
  /** Its name for 1m candles in `sim.candle`. */
  minute: string;
  /** From `fromMs` on, `coin` settles every `hours`. */
  setInterval(sim: VenueSimulator, coin: string, hours: number, fromMs: number): void;
  /** The settlement stamped in the hour `hourMs`: its time and rate as the venue sends them. */
  funding(sim: VenueSimulator, coin: string, hourMs: number): { time: number; rate: string } | null;
  /** What the simulated venue answers for BTCUSDT's 1m mark, index or premium kline of a minute: its close. */
  pastClose(sim: VenueSimulator, kind: 'mark' | 'index' | 'premium', minute: number): Promise<string>;
  /** BTCUSDT's open interest the venue's 5-minute history stamps at `stamp`. */
  openInterestAt(sim: VenueSimulator, stamp: number): Promise<string>;
  /** The request kinds (`sim.requests`) of its context history. */
  historyKinds: RegExp;
}

const getJson = async (url: string): Promise<unknown> => (await fetch(url)).json();
const USDM_KLINES = { mark: '/fapi/v1/markPriceKlines?symbol', index: '/fapi/v1/indexPriceKlines?pair', premium: '/fapi/v1/premiumIndexKlines?symbol' };
const BYBIT_KLINES = { mark: 'mark-price-kline', index: 'index-price-kline', premium: 'premium-index-price-kline' };
/** Bybit's `result.list`. */
const bybitList = async (url: string) => ((await getJson(url)) as { result: { list: unknown[] } }).result.list;

export const PERP_VENUES: readonly PerpVenueCase[] = [
  {
    exchange: 'binance-perp',
    venue: 'binance-perp',
    minute: '1m',
    setInterval: (sim, coin, hours, fromMs) => sim.setBinancePerpInterval(coin, hours, fromMs),
    funding: (sim, coin, hourMs) => {
      const f = sim.binancePerpFunding(coin, hourMs);
      return f && { time: f.fundingTime, rate: f.fundingRate };
    },
    pastClose: async (sim, kind, minute) =>
      ((await getJson(`${sim.env.BINANCE_FUTURES_API_URL}${USDM_KLINES[kind]}=BTCUSDT&interval=1m&startTime=${minute}&endTime=${minute}&limit=1`)) as string[][])[0][4],
    openInterestAt: async (sim, stamp) =>
      ((await getJson(`${sim.env.BINANCE_FUTURES_API_URL}/futures/data/openInterestHist?symbol=BTCUSDT&period=5m&startTime=${stamp}&endTime=${stamp}&limit=1`)) as Array<{ sumOpenInterest: string }>)[0].sumOpenInterest,
    historyKinds: /PriceKlines|openInterestHist/,
  },
  {
    exchange: 'bybit-perp',
    venue: 'bybit',
    minute: '1',
    setInterval: (sim, coin, hours, fromMs) => sim.setBybitInterval(coin, hours, fromMs),
    funding: (sim, coin, hourMs) => {
      const f = sim.bybitFunding(coin, hourMs);
      return f && { time: f.fundingRateTimestamp, rate: f.fundingRate };
    },
    pastClose: async (sim, kind, minute) =>
      ((await bybitList(`${sim.env.BYBIT_API_URL}/v5/market/${BYBIT_KLINES[kind]}?category=linear&symbol=BTCUSDT&interval=1&start=${minute}&end=${minute}&limit=1`)) as string[][])[0][4],
    openInterestAt: async (sim, stamp) =>
      ((await bybitList(`${sim.env.BYBIT_API_URL}/v5/market/open-interest?category=linear&symbol=BTCUSDT&intervalTime=5min&startTime=${stamp}&endTime=${stamp}&limit=1`)) as Array<{ singleOpenInterest: string }>)[0].singleOpenInterest,
    historyKinds: /price-kline|open-interest/,
  },
];
