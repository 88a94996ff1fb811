/** The server's job schedules: the first run at once, or one interval after the start. */
import { startJobSchedule } from '../../src/jobs/schedule';
import { createLogger } from '../../src/logger';

const logger = createLogger('silent');

describe('startJobSchedule', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function schedule(atOnce?: boolean) {
    const run = jest.fn(async () => 1);
    const stop = startJobSchedule({ job: 'quality', name: 'quality job', intervalMs: 60_000, run, report: () => null, logger, atOnce });
    return { run, stop };
  }

  it('when started, then the first run is at once', async () => {
    const { run, stop } = schedule();
    expect(run).toHaveBeenCalledTimes(1);
    await stop();
  });

  it('when started with atOnce false (another process just ran the job), then the first run waits one interval', async () => {
    const { run, stop } = schedule(false);
    expect(run).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(59_999);
    expect(run).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await stop();
  });
});
