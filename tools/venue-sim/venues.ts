/** The simulated venues and how their instrument names map to one coin (BTC ↔ BTCUSDT). */

export type SimVenue = 'hyperliquid' | 'binance' | 'binance-perp' | 'bybit';

/** In the order the price model salts them: a new venue goes last, so the others keep their values. */
export const VENUES: readonly SimVenue[] = ['hyperliquid', 'binance', 'binance-perp', 'bybit'];

/** The venues that settle funding at intervals of hours (Hyperliquid settles every hour, by its own rules). */
export type IntervalPerpVenue = 'binance-perp' | 'bybit';

/** A value per venue. */
export const perVenue = <T>(make: () => T): Record<SimVenue, T> => ({ hyperliquid: make(), binance: make(), 'binance-perp': make(), bybit: make() });

const QUOTE_SUFFIX = /(USDT|USDC|FDUSD|BUSD)$/;

/** The coin an instrument trades: Hyperliquid names the coin, Binance (spot and USD-M) and Bybit the pair. */
export function coinOf(venue: SimVenue, instrument: string): string {
  return venue === 'hyperliquid' ? instrument : instrument.replace(QUOTE_SUFFIX, '');
}
