/**
 * Work started without waiting for it (a write's events, a minute's context rows), kept until it
 * settles so that whoever stops the process can wait for it instead of closing under it.
 */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  /** Keep `work` until it settles; returns it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const done = () => void this.running.delete(work);
    work.then(done, done);
    return work;
  }

  /** Settled everything kept, what started meanwhile too. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
