import { compareDecimal, fixedPlaces, formatFloat, parseAnyDecimal, parseDecimal, roundDecimal } from '../../src/domain/decimal';

describe('parseDecimal', () => {
  it.each([
    ['42', '42'],
    ['+42.50', '42.5'],
    ['-0.000', '0'],
    ['0.0001', '0.0001'],
    ['1e-05', '0.00001'],
    ['-1.5E3', '-1500'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['007.0100', '7.01'],
    ['65000.12', '65000.12'],
  ])('when given %s, then canonical %s', (input, out) => {
    expect(parseDecimal(input)).toBe(out);
  });

  it.each(['', 'abc', 'NaN', 'Infinity', '1,5', '--1', '.', '1e999', '0x10', '-', '1.2.3', '1e', '- 1'])('when given "%s", then null', (input) => {
    expect(parseDecimal(input)).toBeNull();
  });

  it('when the text is plain, then the one-match reading agrees with the general parser', () => {
    const inputs = ['0', '-0', '0.0', '-0.000', '7', '-7', '10', '100.00', '43000.12000000', '0.00000001', '-0.5', '1.0010', '99999999999999999999.99'];
    // Deterministic pseudo-random plain decimals: up to 12 integer and 10 fraction digits.
    let seed = 7;
    const digit = () => String((seed = (seed * 48271) % 2147483647) % 10);
    for (let i = 0; i < 2_000; i++) {
      let int = '';
      for (let n = seed % 12; n >= 0; n--) int += digit();
      let frac = '';
      for (let n = seed % 11; n > 0; n--) frac += digit();
      inputs.push(`${seed % 3 === 0 ? '-' : ''}${int}${frac ? `.${frac}` : ''}`);
    }
    for (const input of inputs) expect([input, parseDecimal(input)]).toEqual([input, parseAnyDecimal(input)]);
  });
});

describe('compareDecimal', () => {
  it.each([
    ['1', '2', -1],
    ['2', '1', 1],
    ['1.10', '1.1', 0],
    ['-1', '1', -1],
    ['-2', '-1', -1],
    ['10', '9.999', 1],
    ['0.1', '0.09', 1],
    // beyond double precision: exact decimal comparison still tells them apart
    ['100000000000000000.1', '100000000000000000.2', -1],
    ['-100000000000000000.2', '-100000000000000000.1', -1],
    ['0.30000000000000001', '0.3', 1],
    ['5', '5', 0],
  ])('compare(%s, %s) = %d', (a, b, r) => {
    expect(compareDecimal(parseDecimal(a)!, parseDecimal(b)!)).toBe(r);
  });
});

describe('roundDecimal (half away from zero, fixed places)', () => {
  it.each([
    ['1.5', 6, '1.500000'],
    ['1.0000005', 6, '1.000001'],
    ['1.0000004999', 6, '1.000000'],
    ['-1.0000005', 6, '-1.000001'],
    ['-0.0000004', 6, '0.000000'],
    ['9.9999995', 6, '10.000000'],
    ['0.000000125', 8, '0.00000013'],
    ['123', 0, '123'],
    ['0.99995', 4, '1.0000'],
  ])('round(%s, %d) = %s', (v, p, out) => {
    expect(roundDecimal(v, p)).toBe(out);
  });
});

describe('fixedPlaces (PostgreSQL numeric text, as round(x, places)::text prints it)', () => {
  it.each([
    ['46998.03', 6, '46998.030000'],
    ['7', 6, '7.000000'],
    ['7', 0, '7'],
    ['0.123456', 6, '0.123456'],
    ['-12.5', 6, '-12.500000'],
    ['1.0000005', 6, '1.000001'],
    ['-1.0000005', 6, '-1.000001'],
    ['-0.0000004', 6, '0.000000'],
    ['9.99999950', 6, '10.000000'],
    ['0.000000125', 8, '0.00000013'],
    ['123.456', 0, '123'],
    ['123.5', 0, '124'],
    ['NaN', 6, 'NaN'],
    ['Infinity', 6, 'Infinity'],
    ['-Infinity', 6, '-Infinity'],
  ])('fixedPlaces(%s, %d) = %s', (v, p, out) => {
    expect(fixedPlaces(v, p)).toBe(out);
  });
});

describe('formatFloat', () => {
  it('renders fixed places and never "-0"', () => {
    expect(formatFloat(1 / 3, 6)).toBe('0.333333');
    expect(formatFloat(-1e-9, 6)).toBe('0.000000');
    expect(formatFloat(-2.5, 4)).toBe('-2.5000');
    expect(formatFloat(null, 6)).toBeNull();
    expect(formatFloat(Number.NaN, 6)).toBeNull();
    expect(formatFloat(-0, 6)).toBe('0.000000');
    expect(formatFloat(-0.4, 0)).toBe('0');
    expect(formatFloat(-0.6, 0)).toBe('-1');
  });

  it('rounds exact binary ties away from zero on both signs', () => {
    // 1/128 = 0.0078125 exactly: a tie at 6 decimals.
    expect(formatFloat(1 / 128, 6)).toBe('0.007813');
    expect(formatFloat(-1 / 128, 6)).toBe('-0.007813');
  });
});
