import { compareDecimal, formatFloat, parseDecimal, roundDecimal } from '../../src/domain/decimal';

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

  it.each(['', 'abc', 'NaN', 'Infinity', '1,5', '--1', '.', '1e999', '0x10'])('when given "%s", then null', (input) => {
    expect(parseDecimal(input)).toBeNull();
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

describe('formatFloat', () => {
  it('renders fixed places and never "-0"', () => {
    expect(formatFloat(1 / 3, 6)).toBe('0.333333');
    expect(formatFloat(-1e-9, 6)).toBe('0.000000');
    expect(formatFloat(-2.5, 4)).toBe('-2.5000');
    expect(formatFloat(null, 6)).toBeNull();
    expect(formatFloat(Number.NaN, 6)).toBeNull();
  });
});
