/**
 * Drives the sockets from the simulator's clock: every pushIntervalMs the open candle of each
 * subscription, and when a candle's period ends its final values exactly once (optionally
 * followed by a stale re-send of it as still open), then the new candle. Timers are computed
 * from now(), so an offset clock works; a clock jump closes the candle that was open, not
 * every candle in between.
 */
import type { Interval } from './intervals';
import type { Faults } from './faults';
import type { SimMarket } from './market';
import type { SimVenue } from './venues';

/** What a push carries: the open candle as of now, the closed candle's final values, or a stale re-send. */
export type PushKind = 'open' | 'closed' | 'resent';

export interface LiveSubscription {
  venue: SimVenue;
  instrument: string;
  interval: Interval;
  push(open: number, kind: PushKind): void;
}

interface Tracked {
  sub: LiveSubscription;
  lastOpen: number;
  lastPushAt: number;
}

export class LiveFeed {
  private readonly tracked = new Map<LiveSubscription, Tracked>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly market: SimMarket,
    private readonly faults: Faults,
    private readonly pushIntervalMs: number,
  ) {}

  /** Starts a subscription with a push of its open candle. */
  add(sub: LiveSubscription): void {
    const now = this.market.now();
    const t = { sub, lastOpen: sub.interval.floor(now), lastPushAt: now };
    this.tracked.set(sub, t);
    this.pushIfServed(sub, t.lastOpen, 'open');
    this.schedule();
  }

  remove(sub: LiveSubscription): void {
    this.tracked.delete(sub);
  }

  close(): void {
    clearTimeout(this.timer);
    this.tracked.clear();
  }

  private tick(): void {
    const now = this.market.now();
    for (const t of this.tracked.values()) this.advance(t, now);
    this.schedule();
  }

  private advance(t: Tracked, now: number): void {
    const open = t.sub.interval.floor(now);
    if (open > t.lastOpen) {
      this.pushIfServed(t.sub, t.lastOpen, 'closed');
      if (this.faults.resendUnclosed) this.pushIfServed(t.sub, t.lastOpen, 'resent');
      t.lastOpen = open;
      t.lastPushAt = now;
      this.pushIfServed(t.sub, open, 'open');
    } else if (open < t.lastOpen) {
      t.lastOpen = open;
    } else if (now - t.lastPushAt >= this.pushIntervalMs) {
      t.lastPushAt = now;
      this.pushIfServed(t.sub, open, 'open');
    }
  }

  private pushIfServed(sub: LiveSubscription, open: number, kind: PushKind): void {
    if (this.market.served(sub.venue, sub.instrument, sub.interval, open)) sub.push(open, kind);
  }

  /** Wakes at the next push or candle boundary, whichever comes first. */
  private schedule(): void {
    clearTimeout(this.timer);
    if (this.tracked.size === 0) return;
    let due = Infinity;
    for (const t of this.tracked.values()) due = Math.min(due, t.lastPushAt + this.pushIntervalMs, t.sub.interval.add(t.lastOpen, 1));
    this.timer = setTimeout(() => this.tick(), Math.max(1, due - this.market.now()));
    this.timer.unref();
  }
}
