/** Waiting for something a test cannot be told about: polling with a deadline, never a blind sleep. */

/** Call `probe` every `everyMs` until `done` holds for its value or `withinMs` has passed; the last value. */
export async function pollUntil<T>(probe: () => Promise<T>, done: (value: T) => boolean, { withinMs, everyMs = 100 }: { withinMs: number; everyMs?: number }): Promise<T> {
  const deadline = Date.now() + withinMs;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await pause(everyMs);
    value = await probe();
  }
  return value;
}

/** Let time pass: for load that must run for a while (traffic across a fault), not for waiting on an outcome. */
export const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A clock ahead of or behind real time, shifted when a suite starts (its beforeAll): the simulator and the service share it. */
export function shiftableClock(): { now: () => number; shift(periodMs: number, atMs: number): void; advanceTo(periodMs: number, atMs: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    /** From now on, the clock reads `atMs` past a multiple of `periodMs` (e.g. 52 s into a minute). */
    shift(periodMs, atMs) {
      offset = atMs - (Date.now() % periodMs);
    },
    /**
     * Jump forward to `atMs` into the current period, never back and never across its end: to
     * the service and the simulator it is a pause (their timers run on real time), so a test
     * waits seconds for a close, not the rest of a minute a slow set-up left it.
     */
    advanceTo(periodMs, atMs) {
      offset += Math.max(0, atMs - ((Date.now() + offset) % periodMs));
    },
  };
}

/** Let real time pass until `clock` reads `atMs` past a multiple of `periodMs`. */
export async function untilClockAt(clock: () => number, periodMs: number, atMs: number): Promise<void> {
  await pause((atMs - (clock() % periodMs) + periodMs) % periodMs);
}
