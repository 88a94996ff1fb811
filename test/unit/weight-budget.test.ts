/** A venue's weight budget: requests wait for room in the last minute, and a refusal closes it. */
import { WeightBudget } from '../../src/venues/weight-budget';

/** A fake clock whose sleeps advance it. */
function fakeTime(start = 1_000_000) {
  const t = { now: start, slept: [] as number[] };
  return { t, now: () => t.now, sleep: async (ms: number) => void (t.slept.push(ms), (t.now += ms)) };
}

describe('WeightBudget', () => {
  it('when the minute has room, then weight is taken at once; when full, the request waits for the oldest to leave', async () => {
    const { t, now, sleep } = fakeTime();
    const b = new WeightBudget(100, now, sleep);
    await b.take(60);
    t.now += 10_000;
    await b.take(40);
    expect(b.used()).toBe(100);
    expect(t.slept).toEqual([]);
    await b.take(30); // waits until the 60 taken at the start is 60 s old
    expect(t.now).toBe(1_000_000 + 60_000);
    expect(b.used()).toBe(70);
  });

  it('when many take at once, then they are served in order and never exceed the budget within a minute', async () => {
    const { t, now, sleep } = fakeTime();
    const b = new WeightBudget(50, now, sleep);
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4, 5].map((i) => b.take(20).then(() => order.push(i))));
    expect(order).toEqual([1, 2, 3, 4, 5]);
    expect(t.now - 1_000_000).toBeGreaterThanOrEqual(120_000); // 100 weight at 50 per minute
  });

  it('when a refusal closes the budget, then nothing is taken before it reopens', async () => {
    const { t, now, sleep } = fakeTime();
    const b = new WeightBudget(1_000, now, sleep);
    b.closeUntil(t.now + 5_000);
    expect(b.reopensAt).toBe(1_005_000);
    await b.take(1);
    expect(t.now).toBe(1_005_000);
  });

  it("when the venue reports more weight used than counted here, then its figure is adopted", () => {
    const { now, sleep } = fakeTime();
    const b = new WeightBudget(1_000, now, sleep);
    b.add(10);
    b.observeUsed(400);
    expect(b.used()).toBe(400);
    b.observeUsed(100);
    expect(b.used()).toBe(400);
  });
});
