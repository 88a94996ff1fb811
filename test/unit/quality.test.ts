import { bandOf, computeQuality, consistencyScore } from '../../src/domain/quality';

const H = 3_600_000;
const NOW = Date.UTC(2026, 0, 8, 0, 10); // 7 days after 2026-01-01 00:10
const START = Date.UTC(2026, 0, 1, 1); // first whole hour in the window

function hours(n: number, skip: number[] = [], spikeAt?: number) {
  const out: Array<{ time: number; close: number }> = [];
  for (let i = 0; i < n; i++) {
    if (skip.includes(i)) continue;
    let close = 100 * (1 + 0.001 * Math.sin(i));
    if (i === spikeAt) close *= 1.5;
    out.push({ time: START + i * H, close });
  }
  return out;
}

describe('data quality score', () => {
  it('when every candle is there, fresh, on one venue and calm, then DQS 1', () => {
    const c = hours(167);
    const r = computeQuality({ timeframe: '1h', computedAt: NOW, candles: c, firstOpen: 0, latestOpen: c[c.length - 1].time, meanBasis: null });
    expect(r).toMatchObject({ expected: 167, present: 167, gapRate: 1, anomaly: 1, consistency: 1, freshness: 1, dqs: 1, missing: [] });
    expect(bandOf(r.dqs)).toBe('production-ready');
  });

  it('when candles are missing, then gap_rate counts them and the holes are listed', () => {
    const c = hours(167, [10, 11, 12, 100]);
    const r = computeQuality({ timeframe: '1h', computedAt: NOW, candles: c, firstOpen: 0, latestOpen: c[c.length - 1].time, meanBasis: null });
    expect(r.expected).toBe(167);
    expect(r.present).toBe(163);
    expect(r.gapRate).toBeCloseTo(163 / 167, 12);
    expect(r.missing).toEqual([
      [START + 10 * H, START + 13 * H],
      [START + 100 * H, START + 101 * H],
    ]);
  });

  it('when one close spikes, then the two returns around it are anomalies', () => {
    const c = hours(167, [], 80);
    const r = computeQuality({ timeframe: '1h', computedAt: NOW, candles: c, firstOpen: 0, latestOpen: c[c.length - 1].time, meanBasis: null });
    expect(r.anomaly).toBeCloseTo(1 - 2 / 166, 12);
  });

  it('when the basis averages 1%, then consistency is 0.6667; 0.4% gives 1 and 2.5% gives 0', () => {
    expect(consistencyScore(0.01).toFixed(4)).toBe('0.6667');
    expect(consistencyScore(0.004)).toBe(1);
    expect(consistencyScore(0.025)).toBe(0);
  });

  it('when the latest candle closed longer ago than the SLA, then freshness 0 and DQS 0.8', () => {
    const c = hours(160);
    const r = computeQuality({ timeframe: '1h', computedAt: NOW, candles: c, firstOpen: 0, latestOpen: c[c.length - 1].time, meanBasis: null });
    expect(r.freshness).toBe(0);
    expect(r.dqs).toBeCloseTo(0.3 * (160 / 167) + 0.5, 12);
    expect(bandOf(0.8)).toBe('data quality concerns');
  });
});
