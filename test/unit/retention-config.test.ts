/** RETENTION_<TF>: per candle timeframe, at least 8 days, never shorter for a coarser timeframe than for a finer one. */
import { loadConfig } from '../../src/config';

const DAY = 86_400_000;

describe('retention settings', () => {
  it('when no RETENTION_* is set, then every timeframe is kept for ever', () => {
    expect(loadConfig({}).retentionMs).toEqual({});
  });

  it('when retentions are set in days, then each timeframe carries its own, and blank is unset', () => {
    const c = loadConfig({ RETENTION_1M: '400d', RETENTION_5M: '800d', RETENTION_15M: '', RETENTION_1H: '' });
    expect(c.retentionMs).toEqual({ '1m': 400 * DAY, '5m': 800 * DAY });
  });

  it('when a retention is under 8 days or not a duration, then the variable is named', () => {
    expect(() => loadConfig({ RETENTION_1M: '7d' })).toThrow(/RETENTION_1M.*at least 8 days/);
    expect(() => loadConfig({ RETENTION_1M: 'soon' })).toThrow(/RETENTION_1M/);
    expect(loadConfig({ RETENTION_1M: '8d' }).retentionMs['1m']).toBe(8 * DAY);
  });

  it('when a coarser timeframe would be kept shorter than a finer one, then it is refused', () => {
    expect(() => loadConfig({ RETENTION_1M: '400d', RETENTION_5M: '30d' })).toThrow(/RETENTION_5M.*RETENTION_1M \(400d\)/);
    expect(() => loadConfig({ RETENTION_1H: '30d' })).toThrow(/RETENTION_1H.*RETENTION_15M \(unset: kept for ever\)/);
    expect(loadConfig({ RETENTION_1M: '30d', RETENTION_5M: '30d', RETENTION_15M: '90d', RETENTION_1H: '1000d', RETENTION_4H: '1000d', RETENTION_1D: '3650d' }).retentionMs['1d']).toBe(3650 * DAY);
  });
});
