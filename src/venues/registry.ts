/**
 * Which adapter serves each role. A third venue is one adapter file implementing VenueAdapter
 * (venue.ts) plus its import and role line here; the other steps: CONTRIBUTING.md, "Add a venue".
 */
import type { IngestConfig } from '../config';
import { BinanceVenue } from './binance.venue';
import { HyperliquidVenue } from './hyperliquid.venue';
import type { VenueAdapter, VenueObserver, ExchangeRole } from './venue';

export function createVenueAdapters(config: IngestConfig, observer: VenueObserver, now: () => number): Record<ExchangeRole, VenueAdapter> {
  const common = { symbolMap: config.symbolMap, socketTimeoutMs: config.socketTimeoutMs, observer, now };
  return {
    perp: new HyperliquidVenue({ ...config.hyperliquid, ...common }),
    spot: new BinanceVenue({ ...config.binance, ...common }),
  };
}
