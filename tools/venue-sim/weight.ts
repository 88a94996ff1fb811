/**
 * Request weight counted per IP in fixed one-minute windows: a window starts at every minute
 * of the clock and its count starts again from zero (as Binance documents its MINUTE limits).
 */
const MINUTE = 60_000;

export class WeightWindow {
  private window = Number.NaN;
  private count = 0;

  constructor(
    readonly limit: number,
    private readonly now: () => number,
  ) {}

  used(): number {
    this.roll();
    return this.count;
  }

  fits(weight: number): boolean {
    return this.used() + weight <= this.limit;
  }

  charge(weight: number): void {
    this.roll();
    this.count += weight;
  }

  /** When the next window starts (ms). */
  resetAt(): number {
    return Math.floor(this.now() / MINUTE) * MINUTE + MINUTE;
  }

  /** Whole seconds until the window starts again (at least 1). */
  secondsToReset(): number {
    return Math.max(1, Math.ceil((this.resetAt() - this.now()) / 1000));
  }

  private roll(): void {
    const window = Math.floor(this.now() / MINUTE);
    if (window !== this.window) {
      this.window = window;
      this.count = 0;
    }
  }
}
