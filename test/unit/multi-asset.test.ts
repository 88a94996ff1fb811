/** How a multi-asset page is merged from its series: times aligned, symbols in order, the limit in distinct times. */
import { alignedJson, alignedRows } from '../../src/domain/multi-asset';

const T0 = Date.UTC(2026, 0, 1) / 1000;
const series = (symbol: string, minutes: number[], values = minutes.map((m) => `${symbol}${m}`)) => ({
  symbol,
  times: Float64Array.from(minutes, (m) => T0 + m * 60),
  values,
});
const at = (m: number) => new Date((T0 + m * 60) * 1000).toISOString().slice(0, 19) + '+00:00';

describe('alignedRows', () => {
  it('when the series share their times, then each row lists every symbol in the order given', () => {
    const rows = alignedRows([series('B', [0, 1]), series('A', [0, 1])], 10);
    expect(rows).toEqual([
      { time: at(0), values: [{ symbol: 'B', value: 'B0' }, { symbol: 'A', value: 'A0' }] },
      { time: at(1), values: [{ symbol: 'B', value: 'B1' }, { symbol: 'A', value: 'A1' }] },
    ]);
  });

  it('when a series has no value at a time, then it is absent from that row only', () => {
    const rows = alignedRows([series('A', [0, 2, 3]), series('B', [1, 2])], 10);
    expect(rows.map((r) => [r.time, r.values.map((v) => v.value)])).toEqual([
      [at(0), ['A0']],
      [at(1), ['B1']],
      [at(2), ['A2', 'B2']],
      [at(3), ['A3']],
    ]);
  });

  it('when there are more distinct times than the limit, then the rows stop at the limit and later values are left out', () => {
    const rows = alignedRows([series('A', [0, 5, 6]), series('B', [1, 2, 3])], 3);
    expect(rows.map((r) => r.time)).toEqual([at(0), at(1), at(2)]);
    expect(rows.flatMap((r) => r.values.map((v) => v.value))).toEqual(['A0', 'B1', 'B2']);
  });

  it('when a series comes out of order, then its values still land at their own times', () => {
    const rows = alignedRows([series('A', [2, 0, 1]), series('B', [1])], 10);
    expect(rows.map((r) => [r.time, r.values.map((v) => v.value)])).toEqual([
      [at(0), ['A0']],
      [at(1), ['A1', 'B1']],
      [at(2), ['A2']],
    ]);
  });

  it('when no series has a value, then there are no rows', () => {
    expect(alignedRows([series('A', []), series('B', [])], 10)).toEqual([]);
    expect(alignedRows([], 10)).toEqual([]);
  });
});

describe('alignedJson', () => {
  it('when rendered, then each row is the JSON object of the same row of alignedRows, and the last time is the last row\'s', () => {
    const list = [series('B-USDT', [0, 1, 3], ['1.500000', '-0.250000', '7.000000']), series('A-USDT', [3, 1, 2], ['3', '1', '2'])];
    const { rows, lastTime } = alignedJson(list, 3);
    const objects = alignedRows(list, 3).map((r) => ({ time: r.time, ...Object.fromEntries(r.values.map((v) => [v.symbol, v.value])) }));
    expect(rows.map((r) => JSON.parse(r))).toEqual(objects);
    expect(rows.map((r) => Object.keys(JSON.parse(r)))).toEqual([['time', 'B-USDT'], ['time', 'B-USDT', 'A-USDT'], ['time', 'A-USDT']]);
    expect(lastTime).toBe(at(2));
    expect(alignedJson([], 3)).toEqual({ rows: [], lastTime: null });
  });
});
