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
