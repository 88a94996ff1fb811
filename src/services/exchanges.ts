/** The two venue identifiers, from configuration (EXCHANGE_PERP, EXCHANGE_SPOT). */
import { AppError } from '../domain/errors';

export class Exchanges {
  constructor(
    readonly perp: string,
    readonly spot: string,
  ) {}

  get all(): string[] {
    return [this.perp, this.spot];
  }

  /** The venue named by `value`, or INVALID_EXCHANGE. */
  require(value: string): string {
    const v = value.trim().toLowerCase();
    if (v !== this.perp && v !== this.spot) {
      throw new AppError('INVALID_EXCHANGE', `exchange "${value}" is not one of ${this.perp}, ${this.spot}`, {
        parameter: 'exchange',
      });
    }
    return v;
  }

  /** Like require, but only the perpetual venue: the spot venue has no funding. */
  requirePerp(value: string): string {
    const v = this.require(value);
    if (v !== this.perp) {
      throw new AppError('INVALID_EXCHANGE', `the spot venue has no funding; use exchange=${this.perp}`, {
        parameter: 'exchange',
      });
    }
    return v;
  }
}
