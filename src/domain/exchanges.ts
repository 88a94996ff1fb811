/**
 * The exchanges the API serves, each a configured entry: its API name (the `exchange`
 * parameter), the venue behind it (src/venues/), perpetual or spot, and for a perpetual the spot
 * exchange its premium and basis are against. The catalogue lists every exchange the service
 * knows; EXCHANGES picks the served ones, in the order /v1/markets lists them.
 */
import { AppError } from './errors';
import { exchangeParam } from './params/market-params';
import { parseValue, type Param } from './params/param';

/** Perpetual contracts (with funding and a context) or spot. */
export type ExchangeKind = 'perp' | 'spot';

/** How a perpetual venue settles funding: its longest interval, and the one assumed when it says none. */
export interface FundingIntervals {
  maxHours: number;
  defaultHours: number;
}

/** A venue settling every hour (Hyperliquid). */
export const HOURLY_VENUE: FundingIntervals = { maxHours: 1, defaultHours: 1 };

/** An exchange the service knows. */
export interface ExchangeDefinition {
  /** Its default API name, and its key in the catalogue. */
  key: string;
  /** The variable that renames it. */
  variable: string;
  /** The venue adapter's id (metrics, logs, INGEST_SYMBOL_MAP keys). */
  venue: string;
  kind: ExchangeKind;
  funding: FundingIntervals | null;
  /**
   * Whether its context is backfilled from the venue's history, which lacks open interest and
   * the predicted funding rate: those are null in a backfilled period (BACKFILL_GAPS).
   */
  contextBackfill?: boolean;
}

/**
 * Every exchange, in its default order: the spec's two first. The premium and the quality
 * basis of every perpetual are against `spot`; spot's consistency score compares with `perp`.
 */
export const EXCHANGE_CATALOGUE: readonly ExchangeDefinition[] = [
  { key: 'perp', variable: 'EXCHANGE_PERP', venue: 'hyperliquid', kind: 'perp', funding: HOURLY_VENUE },
  { key: 'spot', variable: 'EXCHANGE_SPOT', venue: 'binance', kind: 'spot', funding: null },
  // Binance USD-M perpetuals: 8-hourly unless fundingInfo says otherwise (4 or 1 on some symbols).
  { key: 'binance-perp', variable: 'EXCHANGE_BINANCE_PERP', venue: 'binance-perp', kind: 'perp', funding: { maxHours: 8, defaultHours: 8 }, contextBackfill: true },
  // Bybit linear perpetuals: instruments-info gives each symbol's interval (8, 4 or 1 hours).
  { key: 'bybit-perp', variable: 'EXCHANGE_BYBIT_PERP', venue: 'bybit', kind: 'perp', funding: { maxHours: 8, defaultHours: 8 }, contextBackfill: true },
];

/** A served exchange: its definition under its configured API name. */
export interface Exchange extends ExchangeDefinition {
  name: string;
}

/** The catalogue's keys, in order. */
export const EXCHANGE_KEYS = EXCHANGE_CATALOGUE.map((d) => d.key);

export class Exchanges {
  /** The served exchanges, in /v1/markets order. */
  readonly list: readonly Exchange[];
  /** The `exchange` parameter: its schema names the served exchanges. */
  readonly exchange: Param<string, true>;
  /** The same, optional (GET /v1/markets). */
  readonly optionalExchange: Param<string, false>;
  private readonly byName: ReadonlyMap<string, Exchange>;

  /**
   * `served`: API names in /v1/markets order (default every exchange); `names`: API names by
   * catalogue key where they are renamed. Validated by the configuration (config-schema.ts).
   */
  constructor(served?: readonly string[], names: Readonly<Record<string, string>> = {}) {
    const all = EXCHANGE_CATALOGUE.map((d): Exchange => ({ ...d, name: names[d.key] ?? d.key }));
    const list = served === undefined ? all : served.map((n) => all.find((e) => e.name === n)!);
    this.list = list;
    this.byName = new Map(list.map((e) => [e.name, e]));
    this.exchange = exchangeParam(this.names, true);
    this.optionalExchange = exchangeParam(this.names, false);
  }

  get names(): string[] {
    return this.list.map((e) => e.name);
  }

  /** The served perpetual exchanges' names. */
  get perpetuals(): string[] {
    return this.list.filter((e) => e.kind === 'perp').map((e) => e.name);
  }

  /** The `spot` exchange's API name (always served: every perpetual's premium is against it). */
  get spot(): string {
    return this.byKey('spot')!.name;
  }

  /** The served exchange of a catalogue key, if served. */
  byKey(key: string): Exchange | undefined {
    return this.list.find((e) => e.key === key);
  }

  /** The served exchange named `name` (as stored: lower-case), if served. */
  get(name: string): Exchange | undefined {
    return this.byName.get(name);
  }

  /** The longest funding interval of a served perpetual's venue, in hours (1 for anything else). */
  fundingMaxHours(name: string): number {
    return this.byName.get(name)?.funding?.maxHours ?? 1;
  }

  /** Whether a served exchange backfills its context: then the context's BACKFILL_GAPS may be null. */
  backfillsContext(): boolean {
    return this.list.some((e) => e.contextBackfill === true);
  }

  isPerpetual(name: string): boolean {
    return this.byName.get(name)?.kind === 'perp';
  }

  /** The exchange named by `text` (case-insensitive), or INVALID_EXCHANGE. */
  parseExchange(text: string): string {
    return parseValue(this.exchange, text);
  }

  /** `exchange` when it is a perpetual: a spot exchange has no funding (nor open interest...). */
  requirePerp(exchange: string, what = 'funding'): string {
    if (!this.isPerpetual(exchange)) {
      throw new AppError('INVALID_EXCHANGE', `the spot venue has no ${what}; use ${this.perpetualHint()}`, { parameter: 'exchange' });
    }
    return exchange;
  }

  /** Where perpetual-only data is (`the perpetual venue` or `perpetual venues`), for messages. */
  perpetualWhere(): string {
    return this.perpetuals.length === 1 ? 'the perpetual venue' : 'perpetual venues';
  }

  /** `exchange=perp` (or `exchange=perp or exchange=binance-perp`): what a refused request should ask for. */
  perpetualHint(): string {
    return this.perpetuals.map((p) => `exchange=${p}`).join(' or ');
  }

  /**
   * The exchange a series' basis (the quality score's consistency) is measured against: `spot`
   * for a perpetual, `perp` for spot (null when `perp` is not served).
   */
  basisOf(exchange: string): string | null {
    if (this.isPerpetual(exchange)) return this.spot;
    return this.byKey('perp')?.name ?? null;
  }
}

/**
 * A comma-separated list of API names (EXCHANGES, INGEST_EXCHANGES) among `known`, kept in its
 * order, case-insensitive; an unknown or repeated name throws, naming it.
 */
export function parseExchangeList(text: string, known: readonly string[]): string[] {
  const names = text.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  if (names.length === 0) throw new Error(`must list at least one of ${known.join(', ')}`);
  const seen = new Set<string>();
  for (const n of names) {
    if (!known.includes(n)) throw new Error(`"${n}" is not one of ${known.join(', ')}`);
    if (seen.has(n)) throw new Error(`"${n}" is listed twice`);
    seen.add(n);
  }
  return names;
}

/**
 * The served list's rule: a perpetual's premium and basis are against `spot`, so a list with a
 * perpetual includes it. Null when the list keeps it, else why not.
 */
export function servedListProblem(served: readonly string[], names: Readonly<Record<string, string>>): string | null {
  const nameOf = (d: ExchangeDefinition) => names[d.key] ?? d.key;
  const spot = nameOf(EXCHANGE_CATALOGUE.find((d) => d.key === 'spot')!);
  const perpetual = EXCHANGE_CATALOGUE.find((d) => d.kind === 'perp' && served.includes(nameOf(d)));
  return perpetual && !served.includes(spot) ? `must include ${spot} (the spot exchange every perpetual's premium is against) with ${nameOf(perpetual)}` : null;
}
