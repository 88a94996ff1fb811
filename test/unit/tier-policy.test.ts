import { AppError } from '../../src/domain/errors';
import { DEFAULT_TIER_LIMITS, resolveTierLimits } from '../../src/domain/tier-limits';
import { TierPolicy } from '../../src/services/access/tier-policy';

const policy = new TierPolicy(DEFAULT_TIER_LIMITS, 'https://example.com/up');
const DAY = 86_400_000;

function refusal(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

describe('tier policy', () => {
  it.each(['1m', '5m', '15m'] as const)('when a free key asks for %s, then 403 naming pro and free', (tf) => {
    const err = refusal(() => policy.requireTimeframe('free', tf));
    expect(err.code).toBe('TIER_LIMIT_EXCEEDED');
    expect(err.message).toBe(`timeframe ${tf} needs the pro plan; your plan is free`);
    expect(err.extras.upgrade_url).toBe('https://example.com/up');
  });

  it('when a free key asks for 1h/4h/1d, or pro for 1m, then it is allowed', () => {
    for (const tf of ['1h', '4h', '1d'] as const) expect(() => policy.requireTimeframe('free', tf)).not.toThrow();
    expect(() => policy.requireTimeframe('pro', '1m')).not.toThrow();
  });

  it('when the free window is exactly 365 days, then allowed; one ms more, then 403', () => {
    expect(() => policy.requireWindow('free', 0, 365 * DAY)).not.toThrow();
    expect(refusal(() => policy.requireWindow('free', 0, 365 * DAY + 1)).message).toMatch(/needs the pro plan; your plan is free/);
    expect(() => policy.requireWindow('pro', 0, 5000 * DAY)).not.toThrow();
  });

  it('when symbol counts pass the plan, then 403 naming the next plan: 5/6 free, 30/31 pro', () => {
    expect(() => policy.requireSymbolCount('free', 5)).not.toThrow();
    expect(refusal(() => policy.requireSymbolCount('free', 6)).message).toMatch(/needs the pro plan; your plan is free/);
    expect(() => policy.requireSymbolCount('pro', 30)).not.toThrow();
    expect(refusal(() => policy.requireSymbolCount('pro', 31)).message).toMatch(/needs the scale plan; your plan is pro/);
    expect(() => policy.requireSymbolCount('scale', 1000)).not.toThrow();
  });

  it('when TIER_LIMITS overrides a field, then only that field changes; a bad shape is refused', () => {
    const l = resolveTierLimits('{"free":{"minuteRequests":1000,"dailyRequests":null}}');
    expect(l.free).toEqual({ ...DEFAULT_TIER_LIMITS.free, minuteRequests: 1000, dailyRequests: null });
    expect(l.pro).toEqual(DEFAULT_TIER_LIMITS.pro);
    expect(() => resolveTierLimits('{"gold":{}}')).toThrow();
    expect(() => resolveTierLimits('{"free":{"minuteRequests":-1}}')).toThrow(/minuteRequests/);
    expect(() => resolveTierLimits('{"free":{"timeframes":["2m"]}}')).toThrow(/timeframes/);
  });

  it('when TIER_LIMITS sets a field to null, then it is unlimited (every field but timeframes, which is a list)', () => {
    const l = resolveTierLimits('{"scale":{"minuteRequests":null,"subscriptions":null},"pro":{"dailyRequests":null,"multiAssetSymbols":null,"historyDays":null}}');
    expect(l.scale).toEqual({ ...DEFAULT_TIER_LIMITS.scale, minuteRequests: null, subscriptions: null });
    expect(l.pro).toMatchObject({ dailyRequests: null, multiAssetSymbols: null, historyDays: null });
    expect(() => resolveTierLimits('{"pro":{"timeframes":null}}')).toThrow(/timeframes/);
    const unlimited = new TierPolicy(l, 'https://example.com/up');
    expect(() => unlimited.requireSubscriptionRoom('scale', 1_000_000)).not.toThrow();
    expect(() => unlimited.requireSymbolCount('pro', 1_000)).not.toThrow();
    expect(() => policy.requireSubscriptionRoom('scale', 500)).toThrow();
  });
});
