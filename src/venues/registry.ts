/**
 * The venue adapters of the served exchanges, one per venue, by venue id. A further venue is one
 * adapter file implementing VenueAdapter (venue.ts), its line here and its catalogue entry
 * (domain/exchanges.ts); the other steps: CONTRIBUTING.md, "Add a venue".
 */
import type { IngestConfig } from '../config';
import { BinancePerpVenue } from './binance-perp.venue';
import { BinanceVenue } from './binance.venue';
import { BybitVenue } from './bybit.venue';
import { HyperliquidVenue } from './hyperliquid.venue';
import type { VenueAdapter, VenueObserver } from './venue';

export function createVenueAdapters(config: IngestConfig, venues: readonly string[], observer: VenueObserver, now: () => number): Map<string, VenueAdapter> {
  const common = { symbolMap: config.symbolMap, socketTimeoutMs: config.socketTimeoutMs, observer, now };
  const adapters: Record<string, () => VenueAdapter> = {
    hyperliquid: () => new HyperliquidVenue({ ...config.hyperliquid, ...common }),
    binance: () => new BinanceVenue({ ...config.binance, ...common }),
    'binance-perp': () => new BinancePerpVenue({ ...config.binanceFutures, ...common }),
    bybit: () => new BybitVenue({ ...config.bybit, ...common }),
  };
  return new Map([...new Set(venues)].map((v) => [v, adapters[v]()]));
}
