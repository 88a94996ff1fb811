import { bucketStart, finerTimeframe, isAligned, lastClosedOpen } from '../../src/domain/timeframe';

const T = Date.UTC(2024, 4, 17, 13, 47, 12);

describe('timeframes', () => {
  it('aligns buckets to the epoch: 4h at 00/04/08..., 1d at midnight UTC', () => {
    expect(bucketStart(T, '4h')).toBe(Date.UTC(2024, 4, 17, 12));
    expect(bucketStart(T, '1d')).toBe(Date.UTC(2024, 4, 17));
    expect(bucketStart(T, '15m')).toBe(Date.UTC(2024, 4, 17, 13, 45));
  });
  it('tells aligned from unaligned open times', () => {
    expect(isAligned(Date.UTC(2024, 4, 17, 13, 45), '15m')).toBe(true);
    expect(isAligned(Date.UTC(2024, 4, 17, 13, 46), '5m')).toBe(false);
  });
  it('names the last closed candle: at 13:47:12 the last closed 1h opened at 12:00', () => {
    expect(lastClosedOpen(T, '1h')).toBe(Date.UTC(2024, 4, 17, 12));
    expect(lastClosedOpen(Date.UTC(2024, 4, 17, 13), '1h')).toBe(Date.UTC(2024, 4, 17, 12));
  });
  it('rolls each timeframe up from the next finer one', () => {
    expect(finerTimeframe('1m')).toBeNull();
    expect(finerTimeframe('4h')).toBe('1h');
  });
});
