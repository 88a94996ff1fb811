/** AsciiText: ASCII written as bytes into one growing buffer, decimals padded as fixedPlaces pads them. */
import fc from 'fast-check';
import { AsciiText } from '../../src/encoding/ascii-text';
import { fixedPlaces } from '../../src/domain/decimal';
import { formatTimestamp } from '../../src/domain/time';

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

describe('AsciiText.epochTime writes what formatTimestamp writes of the whole seconds', () => {
  const written = (texts: string[]) => {
    const out = new AsciiText(8);
    for (const t of texts) out.epochTime(t);
    return out.view().toString('latin1');
  };
  const expected = (texts: string[]) => texts.map((t) => formatTimestamp(Math.floor(Number(t)) * 1000)).join('');

  it('for whole and fractional seconds, day changes, the epoch, before it and past year 9999', () => {
    const texts = ['1704067200', '1704067259.999', '1704153599', '1704153600', '0', '0.5', '-1', '-86400.5', '253402300799', '253402300800', '1.7e+09', '1704067200.'];
    expect(written(texts)).toBe(expected(texts));
  });

  it('agrees on generated epoch texts written one after another', () => {
    const text = fc.oneof(
      fc.integer({ min: 0, max: 253_402_300_799 }).map(String),
      fc.tuple(fc.integer({ min: -1e10, max: 3e11 }), fc.integer({ min: 0, max: 999 })).map(([s, f]) => `${s}.${String(f).padStart(3, '0')}`),
    );
    fc.assert(fc.property(fc.array(text, { maxLength: 20 }), (texts) => written(texts) === expected(texts)));
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
