/** collectGarbage frees what nothing references any more, without the process started with --expose-gc. */
import { collectGarbage } from '../../src/services/runtime/collect-garbage';

describe('collectGarbage', () => {
  it('when an object is only weakly held, then a collection frees it', async () => {
    let held: object | null = { big: new Array(1_000).fill('x') };
    const ref = new WeakRef(held);
    held = null;
    // A WeakRef's target stays alive until the end of the current job.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(ref.deref()).toBeUndefined();
  });
});
