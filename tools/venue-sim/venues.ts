/** The two simulated venues and how their instrument names map to one coin (BTC ↔ BTCUSDT). */

export type SimVenue = 'hyperliquid' | 'binance';

export const VENUES: readonly SimVenue[] = ['hyperliquid', 'binance'];

const QUOTE_SUFFIX = /(USDT|USDC|FDUSD|BUSD)$/;

/** The coin an instrument trades: Hyperliquid names the coin, Binance the pair. */
export function coinOf(venue: SimVenue, instrument: string): string {
  return venue === 'hyperliquid' ? instrument : instrument.replace(QUOTE_SUFFIX, '');
}
