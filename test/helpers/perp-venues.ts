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
}

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
  },
];
