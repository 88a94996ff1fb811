import fc from 'fast-check';
import { AsciiText } from '../../src/encoding/ascii-text';
import { candleJson, candlesJson } from '../../src/db/candle-pages';
import { fixedPlaces, formatFloat } from '../../src/domain/decimal';

const fixed = (v: number | null, places = 6) => {
  const out = new AsciiText(16);
  out.fixed(v, places);
  return out.view().toString('latin1');
};

const iso = (ms: number) => {
  const out = new AsciiText(16);
  out.isoTime(ms);
  return out.view().toString('latin1');
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
    expect(out.view().toString('latin1')).toBe(expected);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (t) => {
        expect(iso(t)).toBe(new Date(t).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('AsciiText.decimal writes what fixedPlaces writes', () => {
  const decimal = (text: string, places: number) => {
    const out = new AsciiText(4);
    out.decimal(`,${text},`, 1, text.length + 1, places);
    return out.view().toString('latin1');
  };

  it('for NUMERIC texts: padded, rounded half away from zero, whole, negative, zero, NaN and Infinity', () => {
    for (const text of ['1.5', '-0.25', '7', '0', '123.4567895', '-0.0000004', '99999.9999995', 'NaN', 'Infinity', '-Infinity', '42.123456', '1e5']) {
      for (const places of [0, 2, 6, 8]) expect([text, places, decimal(text, places)]).toEqual([text, places, fixedPlaces(text, places)]);
    }
  });

  it('agrees on generated decimal texts at 0 to 8 places', () => {
    const text = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 10 })).map(([neg, digits, scale]) => {
      const d = digits.toString().padStart(scale + 1, '0');
      const t = scale === 0 ? d : `${d.slice(0, -scale)}.${d.slice(-scale)}`;
      return neg && /[1-9]/.test(t) ? `-${t}` : t;
    });
    fc.assert(fc.property(text, fc.integer({ min: 0, max: 8 }), (t, places) => decimal(t, places) === fixedPlaces(t, places)));
  });
});

describe('candlesJson', () => {
  it('writes the rows as candleJson does, separated by commas, up to the count', () => {
    const rows = [
      ['1767225600', '43000.5', '43100', '42999.1234567', '43050.0000005', '12.25'],
      ['1767225660.5', '0.000001', '1', '0', '-1.5', 'NaN'],
      ['1767225720', '1', '1', '1', '1', '1'],
    ];
    expect(candlesJson(rows, 2).toString()).toBe(rows.slice(0, 2).map(candleJson).join(','));
    expect(candlesJson(rows, 3).toString()).toBe(rows.map(candleJson).join(','));
    expect(candlesJson(rows, 0).toString()).toBe('');
  });
});

describe('AsciiText', () => {
  it('grows past its first size and keeps what it holds', () => {
    const out = new AsciiText(4);
    out.ascii('abc');
    out.copy(Buffer.from('0123456789'), 2, 8);
    out.byte(33);
    expect(out.view().toString('latin1')).toBe('abc234567!');
    expect(out.length).toBe(10); // a view leaves what it shows in place
  });
});
