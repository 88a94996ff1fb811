/** What a test may set when it starts the simulator, the environment it gives the service, and its request log. */
import type { SimVenue } from './venues';

export interface SimOptions {
  /** Instruments served: hyperliquid coins (e.g. ['BTC','ETH']) and binance symbols (e.g. ['BTCUSDT','ETHUSDT']). */
  hyperliquid?: string[];
  binance?: string[];
  /** Binance USD-M perpetuals (e.g. ['BTCUSDT','ETHUSDT'], the default). */
  binancePerp?: string[];
  /** Bybit linear perpetuals (e.g. ['BTCUSDT','ETHUSDT'], the default). */
  bybit?: string[];
  /** The simulator's clock (default Date.now). Tests pass an offset clock shared with the service. */
  now?: () => number;
  /** No candle opens before this (a listing date); default now - 400 days. */
  listedAt?: number;
  /** Hyperliquid's horizon: most recent N candles per interval (default 5000). */
  hyperliquidCandleLimit?: number;
  /** Weight limits per minute (defaults 1200 and 6000); Infinity = no limits (benchmarks). */
  hyperliquidWeightLimit?: number;
  binanceWeightLimit?: number;
  /** Binance USD-M's (default 2400). */
  binancePerpWeightLimit?: number;
  /** Bybit's requests per minute (default 6000). */
  bybitWeightLimit?: number;
  /** How often an open candle is pushed on the sockets (default 1000 ms). */
  pushIntervalMs?: number;
  /** How often Hyperliquid pushes an asset context and Bybit a tickers update (default 1000 ms), half an interval off the second. */
  contextIntervalMs?: number;
  /** Binance server ping interval (default 20000). */
  pingIntervalMs?: number;
  port?: number; // 0 = any (default)
}

export type SimEnv = Record<
  | 'HYPERLIQUID_API_URL'
  | 'HYPERLIQUID_WS_URL'
  | 'BINANCE_API_URL'
  | 'BINANCE_WS_URL'
  | 'BINANCE_FUTURES_API_URL'
  | 'BINANCE_FUTURES_WS_URL'
  | 'BYBIT_API_URL'
  | 'BYBIT_WS_URL',
  string
>;

export interface SimRequest {
  venue: SimVenue;
  kind: string;
  status: number;
  weight: number;
  at: number;
  params: Record<string, unknown>;
}
