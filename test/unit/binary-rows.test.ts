/** BinaryRows.fixed: a computed value as the numeric formatFloat writes, read back as PostgreSQL renders it (rowsAsText). */
import fc from 'fast-check';
import { formatFloat } from '../../src/domain/decimal';
import { BinaryRows, rowsAsText } from '../../src/encoding/binary-rows';

/** What PostgreSQL stores for formatFloat's text: itself, or numeric_in's whole number for toFixed's exponent form (1e21 on). */
const stored = (v: number | null, places = 6) => {
  const text = formatFloat(v, places);
  if (text === null) return '';
  const exp = /^(-?)(\d)(?:\.(\d+))?e\+(\d+)$/.exec(text);
  return exp ? exp[1] + exp[2] + (exp[3] ?? '').padEnd(Number(exp[4]), '0') : text;
};

const fixed = (v: number | null, places = 6) => {
  const out = new BinaryRows(64);
  out.row(1);
  out.fixed(v, places);
  return rowsAsText(out.take(), ['numeric'])[0][0] ?? '';
};

describe('BinaryRows.fixed stores what formatFloat writes', () => {
  it.each([
    0, -0, 1, -1, 0.5, -0.5, 0.0000005, -0.0000005, 0.0000004999, -0.0000004999, 1e-7, -1e-7, 65215.600205, -12.3456785,
    // Exact ties at 6 places: j / 128 for odd j is k + 0.5 millionths.
    1 / 128, 3 / 128, -5 / 128, 1001 / 128, 999999.9999995, 2 ** 52 / 1e6, 2 ** 31 / 1e6, 2 ** 33, 4.5e9, -4.5e9, 1e15, 1e21, 1.5e300,
    Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE,
  ])('for %s', (v) => {
    expect(fixed(v)).toBe(stored(v));
  });

  it('writes nothing for null and values that are not finite (an empty field: NULL)', () => {
    for (const v of [null, NaN, Infinity, -Infinity]) expect(fixed(v)).toBe('');
  });

  it('agrees on generated doubles: any double, prices, small values and near-ties, at 0 to 8 places', () => {
    const near = fc.tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: -3, max: 3 })).map(([k, ulps]) => {
      let v = (k + 0.5) / 1e6;
      for (let i = 0; i < Math.abs(ulps); i++) v = ulps > 0 ? v + Number.EPSILON * Math.abs(v) : v - Number.EPSILON * Math.abs(v);
      return v;
    });
    const value = fc.oneof(
      fc.double({ noNaN: true }),
      fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      fc.double({ min: -1e-3, max: 1e-3, noNaN: true }),
      near,
    );
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), (v, places) => {
        expect(fixed(v, places)).toBe(stored(v, places));
      }),
      { numRuns: 50_000 },
    );
  });
});

