/** The two venue identifiers, from configuration (EXCHANGE_PERP, EXCHANGE_SPOT). */
import { AppError } from '../domain/errors';
import { check, exchangeParam, type Param } from '../domain/query-params';

export class Exchanges {
  /** The `exchange` parameter: its schema names these two venues. */
  readonly param: Param<string>;
  /** The same, optional (GET /v1/markets). */
  readonly optionalParam: Param<string>;

  constructor(
    readonly perp: string,
    readonly spot: string,
  ) {
    this.param = exchangeParam([perp, spot]);
    this.optionalParam = exchangeParam([perp, spot], false);
  }

  get all(): string[] {
    return [this.perp, this.spot];
  }

  /** The venue named by `value`, or INVALID_EXCHANGE. */
  require(value: string): string {
    return check(this.param, value);
  }

  /** Like require, but only the perpetual venue: the spot venue has no funding. */
  requirePerp(value: string): string {
    return this.onlyPerp(this.require(value));
  }

  /** `v` (a validated venue) when it is the perpetual one. */
  onlyPerp(v: string): string {
    if (v !== this.perp) {
      throw new AppError('INVALID_EXCHANGE', `the spot venue has no funding; use exchange=${this.perp}`, {
        parameter: 'exchange',
      });
    }
    return v;
  }
}
