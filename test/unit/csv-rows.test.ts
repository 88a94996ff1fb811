import { RowError, checkHeader, parseCandleRow, parseFundingRow, splitCsvLine, CANDLE_HEADER } from '../../src/domain/csv-rows';

const row = (s: string) => parseCandleRow(splitCsvLine(s), '1m');

describe('candle CSV rows', () => {
  it('accepts ISO and Unix-ms times and keeps decimals exact', () => {
    expect(row('2024-01-01T00:01:00Z,100.10,101,99.5,100.2,12.345678901')).toEqual({
      time: Date.UTC(2024, 0, 1, 0, 1),
      open: '100.1',
      high: '101',
      low: '99.5',
      close: '100.2',
      volume: '12.345678901',
    });
    expect(row('1704067260000,1,1,1,1,0').time).toBe(Date.UTC(2024, 0, 1, 0, 1));
  });

  it.each([
    ['2024-01-01T00:01:30Z,1,1,1,1,1', /not aligned to 1m/],
    ['2024-01-01T00:01:00Z,1,0.9,0.8,1,1', /high is below/],
    ['2024-01-01T00:01:00Z,1,2,1.1,1.5,1', /low is above/],
    ['2024-01-01T00:01:00Z,1,2,1,1.5,-1', /volume is negative/],
    ['2024-01-01T00:01:00Z,1,2,x,1.5,1', /low "x" is not a finite number/],
    ['2024-01-01T00:01:00Z,1,2,1,1.5', /expected 6 columns/],
    ['2024-02-30T00:00:00Z,1,2,1,1.5,1', /not ISO 8601/],
    ['2024-01-01T00:01:00Z,0,0,0,0,1', /positive/],
  ])('when the row is %s, then it is rejected (%s)', (line, reason) => {
    expect(() => row(line)).toThrow(RowError);
    expect(() => row(line)).toThrow(reason);
  });

  it('checks the header, case-insensitively and ignoring a BOM', () => {
    expect(() => checkHeader(splitCsvLine('\uFEFFTime,Open,High,Low,Close,Volume'), CANDLE_HEADER)).not.toThrow();
    expect(() => checkHeader(splitCsvLine('time,open,high,low,close'), CANDLE_HEADER)).toThrow(/header must be/);
  });
});

describe('funding CSV rows', () => {
  it('accepts hour-aligned rows with exponent notation', () => {
    expect(parseFundingRow(['2024-01-01T01:00:00Z', '1.25e-05'])).toEqual({ time: Date.UTC(2024, 0, 1, 1), rate: '0.0000125' });
  });
  it('when the time is not on the hour, then it is rejected', () => {
    expect(() => parseFundingRow(['2024-01-01T01:30:00Z', '0.0001'])).toThrow(/aligned to the hour/);
  });
});
