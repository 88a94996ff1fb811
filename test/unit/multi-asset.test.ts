/** How a multi-asset page is merged from its series: times aligned, symbols in order, the limit in distinct times, values rendered. */
import { fixedPlaces } from '../../src/domain/decimal';
import { alignedRows, seriesOfTexts } from '../../src/domain/multi-asset';
import { alignedJson } from '../../src/rest/serializers/multi-asset.serializer';

const T0 = Date.UTC(2026, 0, 1) / 1000;
/** A series as PostgreSQL folds it: epoch seconds and values, comma-separated. */
const series = (symbol: string, minutes: number[], values = minutes.map((m) => `${m}.5`)) => ({
  symbol,
  ...seriesOfTexts(minutes.map((m) => String(T0 + m * 60)).join(','), values.join(',')),
});
const at = (m: number) => new Date((T0 + m * 60) * 1000).toISOString().slice(0, 19) + '+00:00';
const cells = (rows: ReturnType<typeof alignedRows>) => rows.map((r) => [r.time, r.values.map((v) => `${v.symbol}=${v.value}`)]);

describe('seriesOfTexts', () => {
  it('when the times carry fractions or exponents, then they are whole seconds, floored', () => {
    expect(Array.from(seriesOfTexts('1767225600,1767225660.75,1.76722572e+09,1767225780.5e0,-1.5', '1,2,3,4,5').times)).toEqual([1767225600, 1767225660, 1767225720, 1767225780, -2]);
  });

  it('when the counts of times and values differ, then it throws', () => {
    expect(() => seriesOfTexts('1,2', '1')).toThrow();
  });
});

describe('alignedRows', () => {
  it('when the series share their times, then each row lists every symbol in the order given', () => {
    expect(cells(alignedRows([series('B', [0, 1]), series('A', [0, 1])], 2, 10))).toEqual([
      [at(0), ['B=0.50', 'A=0.50']],
      [at(1), ['B=1.50', 'A=1.50']],
    ]);
  });

  it('when a series has no value at a time, then it is absent from that row only', () => {
    expect(cells(alignedRows([series('A', [0, 2, 3]), series('B', [1, 2])], 1, 10))).toEqual([
      [at(0), ['A=0.5']],
      [at(1), ['B=1.5']],
      [at(2), ['A=2.5', 'B=2.5']],
      [at(3), ['A=3.5']],
    ]);
  });

  it('when there are more distinct times than the limit, then the rows stop at the limit and later values are left out', () => {
    expect(cells(alignedRows([series('A', [0, 5, 6]), series('B', [1, 2, 3])], 1, 3))).toEqual([
      [at(0), ['A=0.5']],
      [at(1), ['B=1.5']],
      [at(2), ['B=2.5']],
    ]);
  });

  it('when a series comes out of order, then its values still land at their own times', () => {
    expect(cells(alignedRows([series('A', [2, 0, 1]), series('B', [1])], 1, 10))).toEqual([
      [at(0), ['A=0.5']],
      [at(1), ['A=1.5', 'B=1.5']],
      [at(2), ['A=2.5']],
    ]);
  });

  it('when no series has a value, then there are no rows', () => {
    expect(alignedRows([], 6, 10)).toEqual([]);
  });
});

describe('alignedJson', () => {
  // PostgreSQL's text of NUMERICs: short, long (rounded), negative, whole, zero, NaN.
  const texts = ['1.5', '-0.25', '7', '123.4567895', '-0.0000004', '0', 'NaN', '42.123456'];
  const list = [series('B-USDT', [0, 1, 3, 4], texts.slice(0, 4)), series('A-USDT', [3, 1, 2, 4, 5], texts.slice(3, 8))];
  const objects = (limit: number) => alignedRows(list, 6, limit).map((r) => ({ time: r.time, ...Object.fromEntries(r.values.map((v) => [v.symbol, v.value])) }));

  it('when rendered, then the rows are the JSON objects of alignedRows, keys in order, values as fixedPlaces writes them, and the next start is the time after', () => {
    const page = alignedJson({ list, places: 6 }, 4);
    expect(page.count).toBe(4);
    const rows = JSON.parse(`[${page.json}]`) as Array<Record<string, string>>;
    expect(rows).toEqual(objects(4));
    expect(rows.map((r) => Object.keys(r))).toEqual([['time', 'B-USDT'], ['time', 'B-USDT', 'A-USDT'], ['time', 'A-USDT'], ['time', 'B-USDT', 'A-USDT']]);
    expect(rows[1]).toEqual({ time: at(1), 'B-USDT': fixedPlaces('-0.25', 6), 'A-USDT': fixedPlaces('-0.0000004', 6) });
    expect(rows[3]['A-USDT']).toBe('123.456790');
    expect(page.nextStart).toBe(at(4));
  });

  it('when every time fits the limit, then there is no next start', () => {
    const page = alignedJson({ list, places: 6 }, 6);
    expect(JSON.parse(`[${page.json}]`)).toEqual(objects(6));
    expect(JSON.parse(`[${page.json}]`)[5]).toEqual({ time: at(5), 'A-USDT': '42.123456' });
    expect(page.nextStart).toBeNull();
    const none = alignedJson({ list: [], places: 6 }, 3);
    expect({ ...none, json: Buffer.from(none.json).toString() }).toEqual({ count: 0, json: '', nextStart: null });
  });

  it('when places is 0 or 8, then the values are rendered as fixedPlaces does', () => {
    for (const places of [0, 8]) {
      const page = alignedJson({ list, places: places }, 10);
      expect(JSON.parse(`[${page.json}]`)).toEqual(alignedRows(list, places, 10).map((r) => ({ time: r.time, ...Object.fromEntries(r.values.map((v) => [v.symbol, v.value])) })));
      expect(alignedRows(list, places, 10)[0].values[0].value).toBe(fixedPlaces('1.5', places));
    }
  });
});
