/**
 * The API's two exchanges, named by configuration (EXCHANGE_PERP, EXCHANGE_SPOT): the one in
 * the perp role, which has funding, and the one in the spot role. The `exchange` parameter only
 * knows these names. (A venue is the outside source behind a role: src/venues/.)
 */
import { AppError } from './errors';
import { exchangeParam } from './params/market-params';
import { parseValue, type Param } from './params/param';

/** The two roles: perpetual contracts (with funding) and spot. */
export type ExchangeRole = 'perp' | 'spot';

export class Exchanges {
  /** The `exchange` parameter: its schema names these two exchanges. */
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

  /** The exchange named by `text` (case-insensitive), or INVALID_EXCHANGE. */
  parseExchange(text: string): string {
    return parseValue(this.exchange, text);
  }

  /** `exchange` when it is in the perp role: the spot exchange has no funding (nor open interest...). */
  requirePerp(exchange: string, what = 'funding'): string {
    if (exchange !== this.perp) {
      throw new AppError('INVALID_EXCHANGE', `the spot venue has no ${what}; use exchange=${this.perp}`, { parameter: 'exchange' });
    }
    return exchange;
  }

  /** The role of the exchange named by `text` (as configured, case-insensitive), or INVALID_EXCHANGE. */
  roleOf(text: string): ExchangeRole {
    return this.parseExchange(text) === this.perp ? 'perp' : 'spot';
  }

  /** The exchange of the same symbol in the other role (perp <-> spot). */
  other(exchange: string): string {
    return exchange === this.perp ? this.spot : this.perp;
  }
}
