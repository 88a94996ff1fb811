import fc from 'fast-check';
import { AsciiText } from '../../src/domain/ascii-text';
import { formatFloat } from '../../src/domain/decimal';

const fixed = (v: number | null, places = 6) => {
  const out = new AsciiText(16);
  out.fixed(v, places);
  return out.take();
};

const iso = (ms: number) => {
  const out = new AsciiText(16);
  out.isoTime(ms);
  return out.take();
};

describe('AsciiText.fixed writes what formatFloat writes', () => {
  it.each([
    0, -0, 1, -1, 0.5, -0.5, 0.0000005, -0.0000005, 0.0000004999, -0.0000004999, 1e-7, -1e-7, 65215.600205, -12.3456785,
    // Exact ties at 6 places: j / 128 for odd j is k + 0.5 millionths.
    1 / 128, 3 / 128, -5 / 128, 1001 / 128, 999999.9999995, 2 ** 52 / 1e6, 2 ** 31 / 1e6, 2 ** 33, 4.5e9, -4.5e9, 1e15, 1e21, 1.5e300,
    Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE,
  ])('for %s', (v) => {
    expect(fixed(v)).toBe(formatFloat(v, 6));
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
        expect(fixed(v, places)).toBe(formatFloat(v, places) ?? '');
      }),
      { numRuns: 50_000 },
    );
  });
});

describe('AsciiText.isoTime writes what toISOString writes', () => {
  it('for instants from 1970 to 9999 and outside, across day changes', () => {
    const out = new AsciiText(16);
    let expected = '';
    // The day cache: consecutive instants on one day, then a jump, then back.
    const times = [0, 1, 59_999, 60_000, 86_399_999, 86_400_000, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2024, 0, 1), 253_402_300_799_999, -1, 253_402_300_800_000];
    for (const t of times) {
      out.isoTime(t);
      out.byte(10);
      expected += `${new Date(t).toISOString()}\n`;
    }
    expect(out.take()).toBe(expected);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (t) => {
        expect(iso(t)).toBe(new Date(t).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('AsciiText', () => {
  it('grows past its first size and keeps what it holds', () => {
    const out = new AsciiText(4);
    out.ascii('abc');
    out.copy(Buffer.from('0123456789'), 2, 8);
    out.byte(33);
    expect(out.take()).toBe('abc234567!');
    expect(out.length).toBe(0);
  });
});
