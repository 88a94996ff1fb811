/**
 * The two venues, named by configuration (EXCHANGE_PERP, EXCHANGE_SPOT): the perpetual venue,
 * which has funding, and the spot venue. The `exchange` parameter only knows these names.
 */
import { AppError } from './errors';
import { exchangeParam } from './params/market-params';
import { parseValue, type Param } from './params/param';

/** The two roles of the API: the perpetual venue (with funding) and the spot venue. */
export type VenueRole = 'perp' | 'spot';

export class Venues {
  /** The `exchange` parameter: its schema names these two venues. */
  readonly exchange: Param<string, true>;
  /** The same, optional (GET /v1/markets). */
  readonly optionalExchange: Param<string, false>;

  constructor(
    readonly perp: string,
    readonly spot: string,
  ) {
    this.exchange = exchangeParam([perp, spot], true);
    this.optionalExchange = exchangeParam([perp, spot], false);
  }

  /** The venue named by `text` (case-insensitive), or INVALID_EXCHANGE. */
  parseExchange(text: string): string {
    return parseValue(this.exchange, text);
  }

  /** `exchange` (a venue name) when it is the perpetual venue: the spot venue has no funding. */
  requirePerp(exchange: string): string {
    if (exchange !== this.perp) {
      throw new AppError('INVALID_EXCHANGE', `the spot venue has no funding; use exchange=${this.perp}`, { parameter: 'exchange' });
    }
    return exchange;
  }

  /** The role of a venue named by `text` (as configured, case-insensitive), or INVALID_EXCHANGE. */
  roleOf(text: string): VenueRole {
    return this.parseExchange(text) === this.perp ? 'perp' : 'spot';
  }

  /** The venue of the same symbol on the other side (perp <-> spot). */
  other(exchange: string): string {
    return exchange === this.perp ? this.spot : this.perp;
  }
}
