/** The simulated venues and how their instrument names map to one coin (BTC ↔ BTCUSDT). */

export type SimVenue = 'hyperliquid' | 'binance' | 'binance-perp';

export const VENUES: readonly SimVenue[] = ['hyperliquid', 'binance', 'binance-perp'];

/** A value per venue. */
export const perVenue = <T>(make: () => T): Record<SimVenue, T> => ({ hyperliquid: make(), binance: make(), 'binance-perp': make() });

const QUOTE_SUFFIX = /(USDT|USDC|FDUSD|BUSD)$/;

/** The coin an instrument trades: Hyperliquid names the coin, Binance (spot and USD-M) the pair. */
export function coinOf(venue: SimVenue, instrument: string): string {
  return venue === 'hyperliquid' ? instrument : instrument.replace(QUOTE_SUFFIX, '');
}
