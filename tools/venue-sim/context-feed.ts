/**
 * Drives the context pushes (Hyperliquid's `activeAssetCtx`, Bybit's `tickers`) from the
 * simulator's clock: one per subscription at its start, then one every `intervalMs` at slots half
 * an interval off the second (never at a minute boundary, where its minute would depend on
 * delivery), carrying the context at the slot's time (context-model.ts) so a test can recompute
 * it. Nothing while the context is silent. The clock is read at least every 100 ms, so a clock a
 * test moves by hand is followed.
 */
import type { Faults } from './faults';
import type { SimMarket } from './market';

/** The longest the feed goes without looking at the clock. */
const LOOK_MS = 100;

export interface ContextSubscription {
  coin: string;
  /** Send the context as of `at`. */
  push(at: number): void;
}

export class ContextFeed {
  private readonly subs = new Set<ContextSubscription>();
  private timer: NodeJS.Timeout | undefined;
  private lastSlot = -Infinity;

  constructor(
    private readonly market: SimMarket,
    private readonly faults: Faults,
    private readonly intervalMs: number,
  ) {}

  /** The slot at or before `t`. */
  private slotOf(t: number): number {
    const phase = this.intervalMs / 2;
    return Math.floor((t - phase) / this.intervalMs) * this.intervalMs + phase;
  }

  add(sub: ContextSubscription): void {
    if (this.subs.size === 0) this.lastSlot = this.slotOf(this.market.now());
    this.subs.add(sub);
    if (!this.faults.contextSilent) sub.push(this.market.now());
    this.schedule();
  }

  remove(sub: ContextSubscription): void {
    this.subs.delete(sub);
  }

  close(): void {
    clearTimeout(this.timer);
    this.subs.clear();
  }

  private tick(): void {
    const slot = this.slotOf(this.market.now());
    // A new slot (or the clock set back): push.
    if (slot !== this.lastSlot) {
      this.lastSlot = slot;
      if (!this.faults.contextSilent) for (const s of this.subs) s.push(slot);
    }
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.subs.size === 0) return;
    const next = this.slotOf(this.market.now()) + this.intervalMs;
    this.timer = setTimeout(() => this.tick(), Math.max(1, Math.min(LOOK_MS, next - this.market.now())));
    this.timer.unref();
  }
}
