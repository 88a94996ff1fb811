/**
 * A full garbage collection on request, for the end of a one-off burst of allocation in a
 * long-lived process (the embedded demo's later seed): glibc keeps memory freed in the middle
 * of its heap, so garbage left to pile up across a burst stays in the RSS for good, where
 * collecting between its steps lets each step reuse the last one's memory.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

export function collectGarbage(): void {
  if (!gc) {
    // V8 exposes `gc` to contexts created after the flag is set.
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
