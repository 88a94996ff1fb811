/**
 * A venue's request-weight budget per minute (or per a longer window: some endpoints have their
 * own, Binance USD-M's funding history 500 per 5 minutes), shared by every caller in this process: requests
 * take their weight before they are sent and wait (in order) while the last 60 s already spent
 * the budget. A 429/418 closes the budget until its Retry-After; the venue's own report of
 * weight used (Binance X-MBX-USED-WEIGHT-1M) is adopted when it exceeds what was counted here
 * (other clients on the same IP).
 */
const WINDOW_MS = 60_000;

export class WeightBudget {
  private spent: Array<{ at: number; weight: number }> = [];
  private closedUntil = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly windowMs = WINDOW_MS,
  ) {}

  /** Weight spent over the last minute. */
  used(): number {
    this.expire();
    return this.spent.reduce((sum, s) => sum + s.weight, 0);
  }

  /** Wait for room for `weight` (capped at the whole budget), then count it as spent. */
  take(weight: number): Promise<void> {
    const w = Math.min(weight, this.perMinute);
    const turn = this.queue.then(async () => {
      for (;;) {
        const t = this.now();
        if (t < this.closedUntil) {
          await this.sleep(this.closedUntil - t);
          continue;
        }
        const used = this.used();
        if (used + w <= this.perMinute) break;
        // Wait until enough of the oldest spending leaves the window.
        let free = this.perMinute - used;
        let until = t;
        for (const s of this.spent) {
          free += s.weight;
          until = s.at + this.windowMs;
          if (free >= w) break;
        }
        await this.sleep(Math.max(1, until - t));
      }
      this.spent.push({ at: this.now(), weight: w });
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Count weight learned after the fact (a response that cost more than estimated). */
  add(weight: number): void {
    if (weight > 0) this.spent.push({ at: this.now(), weight });
  }

  /** The venue says this much of its minute is used: adopt it when it is more than counted. */
  observeUsed(usedByVenue: number): void {
    const extra = usedByVenue - this.used();
    if (extra > 0) this.spent.push({ at: this.now(), weight: extra });
  }

  /** No request until `untilMs` (a 429 or 418 Retry-After, or a backoff). */
  closeUntil(untilMs: number): void {
    this.closedUntil = Math.max(this.closedUntil, untilMs);
  }

  /** When the budget reopens after a refusal (0: open). */
  get reopensAt(): number {
    return this.closedUntil > this.now() ? this.closedUntil : 0;
  }

  private expire(): void {
    const cutoff = this.now() - this.windowMs;
    let i = 0;
    while (i < this.spent.length && this.spent[i].at <= cutoff) i++;
    if (i) this.spent.splice(0, i);
  }
}
