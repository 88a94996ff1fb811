import { DependencyState, type DependencyEvent } from '../../src/domain/dependency-state';

describe('DependencyState', () => {
  it('when calls fail repeatedly, then the outage is told once, and once more when a call succeeds, with the failures counted', () => {
    const events: DependencyEvent[] = [];
    let now = 1_000;
    const state = new DependencyState('redis', (e) => events.push(e), () => now);
    state.succeeded();
    expect(events).toEqual([]);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 5; i++) state.failed(refused);
    expect(state.isDown).toBe(true);
    expect(events).toEqual([{ kind: 'down', dependency: 'redis', error: 'connect ECONNREFUSED 127.0.0.1:6379' }]);
    now = 4_500;
    state.succeeded();
    state.succeeded();
    expect(state.isDown).toBe(false);
    expect(events[1]).toEqual({ kind: 'up', dependency: 'redis', failures: 5, downMs: 3_500 });
    state.failed(Object.assign(new Error('terminating connection'), { code: '57P01' }));
    expect(events[2]).toEqual({ kind: 'down', dependency: 'redis', error: '57P01: terminating connection' });
  });
});
