/**
 * The one way background work repeats in this process (the quality job, the demo feed, the
 * live session's schedules): each run starts `delayMs()` after the previous one ended (the
 * first at once when asked), never two at a time; the returned stop cancels the next run and
 * waits for one in progress. Timers are unref'd: a schedule alone never keeps a process alive.
 */
export function repeat(work: () => Promise<void> | void, delayMs: () => number, opts: { immediately?: boolean } = {}): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    running = (async () => {
      await work();
      if (!stopped) schedule();
    })();
  };
  const schedule = () => {
    timer = setTimeout(run, Math.max(0, delayMs()));
    timer.unref();
  };
  if (opts.immediately) run();
  else schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
