/** The fault switches a test turns on, per venue: forced failures, latency, silence, malformed rows, a silent context feed. */
import { MALFORM_KINDS, type MalformKind } from './malform';
import { perVenue, type SimVenue } from './venues';

export interface ForcedFailure {
  status: number;
  retryAfterSecs?: number;
}

export class Faults {
  readonly latencyMs = perVenue(() => 0);
  readonly silent = perVenue(() => false);
  resendUnclosed = false;
  /** The context pushes (Hyperliquid's asset contexts, Bybit's tickers) stop while the candles go on. */
  contextSilent = false;
  private readonly failures = perVenue<ForcedFailure[]>(() => []);
  private readonly malformLeft = perVenue(() => 0);
  private readonly malformNext = perVenue(() => 0);

  failNext(venue: SimVenue, n: number, failure: ForcedFailure): void {
    for (let i = 0; i < n; i++) this.failures[venue].push(failure);
  }

  /** The forced failure the next request of the venue answers, if any. */
  takeFailure(venue: SimVenue): ForcedFailure | undefined {
    return this.failures[venue].shift();
  }

  malform(venue: SimVenue, n: number): void {
    this.malformLeft[venue] += n;
  }

  /** How the next candle row of the venue is broken, or null while the switch is off. */
  takeMalform(venue: SimVenue): MalformKind | null {
    if (this.malformLeft[venue] === 0) return null;
    this.malformLeft[venue] -= 1;
    const kind = MALFORM_KINDS[this.malformNext[venue] % MALFORM_KINDS.length];
    this.malformNext[venue] += 1;
    return kind;
  }
}
