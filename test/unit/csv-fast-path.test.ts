/**
 * The byte-level reading of the common candle line against the general parser: whatever the
 * fast path accepts, the general parser accepts with the same time and writes the same text;
 * what the general parser rejects, the fast path leaves to it (it never rejects, it declines).
 */
import fc from 'fast-check';
import { BinaryRows } from '../../src/encoding/binary-rows';
import { fastCandleLine, writeCandle } from '../../src/encoding/csv-fast-path';
import { RowError, parseCandleRow, splitCsvLine } from '../../src/domain/csv-rows';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, type CandleTimeframe } from '../../src/domain/timeframe';

type Outcome = { time: number; text: string } | 'declined' | 'rejected';

function general(line: string, tf: CandleTimeframe): Outcome {
  try {
    const row = parseCandleRow(splitCsvLine(line), tf);
    const out = new BinaryRows(64);
    writeCandle(out, row);
    return { time: row.time, text: out.take().toString('hex') };
  } catch (err) {
    if (err instanceof RowError) return 'rejected';
    throw err;
  }
}

function fast(line: string, tf: CandleTimeframe): Outcome {
  // Inside a larger buffer, as in a block of the file: the path must stay within [start, end).
  const bytes = Buffer.from(`x\n${line}\n,9`);
  const out = new BinaryRows(8);
  out.row(7); // a mark: what the path writes follows it
  const time = fastCandleLine(bytes, 2, bytes.length - 3, TIMEFRAME_MS[tf], out);
  const text = out.take().toString('hex');
  if (time < 0) {
    expect(text).toBe('0007'); // nothing written when declined
    return 'declined';
  }
  return { time, text: text.slice(4) };
}

/** The fast path agrees with the general parser; returns the fast outcome. */
function agree(line: string, tf: CandleTimeframe = '1m'): Outcome {
  const f = fast(line, tf);
  if (f !== 'declined') expect([line, f]).toEqual([line, general(line, tf)]);
  return f;
}

describe('the fast path of candle lines', () => {
  it.each([
    '2024-01-01T00:01:00Z,100.10,101,99.5,100.2,12.345678901',
    '2024-01-01T00:01:00.000Z,65000.00,65003.61,64966.76,65000.88,3.5868',
    '2024-01-01T00:01:00.000000000Z,1,1,1,1,0',
    '2024-01-01T00:01:00.0001Z,1,1,1,1,0',
    '1704067260000,1,1,1,1,0',
    '0001704067260000,1,1,1,1,0',
    '2024-02-29T23:59:00Z,0.5,0.50,0.5,0.500,0.0',
    '2000-02-29T00:00:00Z,10,10.5,9.99,10.000,100',
  ])('accepts the common line %s as the general parser does', (line) => {
    expect(agree(line)).not.toBe('declined');
  });

  it.each([
    // Every form the general parser rejects: the fast path declines, the general path names it.
    ['2024-01-01T00:01:30Z,1,1,1,1,1', 'not aligned'],
    ['2024-01-01T00:01:00.001Z,1,1,1,1,1', 'not aligned'],
    ['2024-01-01T00:01:00Z,1,0.9,0.8,1,1', 'high below'],
    ['2024-01-01T00:01:00Z,1,2,1.1,1.5,1', 'low above'],
    ['2024-01-01T00:01:00Z,1,2,1,1.5,-1', 'negative volume'],
    ['2024-01-01T00:01:00Z,1,2,x,1.5,1', 'not a number'],
    ['2024-01-01T00:01:00Z,1,2,1,1.5', 'five columns'],
    ['2024-01-01T00:01:00Z,1,2,1,1.5,1,7', 'seven columns'],
    ['2024-01-01T00:01:00Z,1,2,1,1.5,1,', 'a trailing comma'],
    ['2024-02-30T00:00:00Z,1,2,1,1.5,1', 'no such day'],
    ['2023-02-29T00:00:00Z,1,2,1,1.5,1', 'not a leap year'],
    ['1900-02-29T00:00:00Z,1,2,1,1.5,1', 'not a leap year, before 1970'],
    ['2024-13-01T00:00:00Z,1,2,1,1.5,1', 'month 13'],
    ['2024-01-01T24:00:00Z,1,2,1,1.5,1', 'hour 24'],
    ['2024-01-01T00:60:00Z,1,2,1,1.5,1', 'minute 60'],
    ['2024-01-01T00:00:60Z,1,2,1,1.5,1', 'second 60'],
    ['1969-12-31T23:59:00Z,1,2,1,1.5,1', 'before 1970'],
    ['99999999999999999,1,2,1,1.5,1', '17 digits'],
    ['253402300800000,1,2,1,1.5,1', 'after 9999'],
    ['2024-01-01T00:01:00Z,0,0,0,0,1', 'zero prices'],
    ['2024-01-01T00:01:00Z,1,1,0,1,1', 'zero low'],
    ['2024-01-01T00:01:00Z,1,1,-1,1,1', 'negative low'],
    ['2024-01-01T00:01:00Z,1,2,1,NaN,1', 'NaN'],
    ['2024-01-01T00:01:00Z,1,2,1,Infinity,1', 'Infinity'],
    ['2024-01-01T00:01:00Z,1,2,1,1e,1', 'a cut exponent'],
    ['2024-01-01T00:01:00Z,1,2,1,,1', 'an empty cell'],
    ['2024-01-01T00:01:00Z,1,2,1,1.5.1,1', 'two points'],
    ['2024-01-01T00:01:00Z,1,2,1,0x10,1', 'hexadecimal'],
    ['2024-01-01T00:01:00,1,2,1,1.5,1,', 'no zone and seven columns'],
    ['not a time,1,2,1,1.5,1', 'not a time'],
    ['', 'empty'],
    [',,,,,', 'only commas'],
  ])('declines %s (%s), which the general parser rejects', (line) => {
    expect(general(line, '1m')).toBe('rejected');
    expect(fast(line, '1m')).toBe('declined');
  });

  it.each([
    // Accepted by the general parser in forms the fast path leaves to it.
    '"2024-01-01T00:01:00Z",1,2,1,1.5,1',
    '2024-01-01T00:01:00Z, 1,2,1,1.5,1',
    '2024-01-01T00:01:00z,1,2,1,1.5,1',
    '2024-01-01 00:01:00Z,1,2,1,1.5,1',
    '2024-01-01T00:01:00+00:00,1,2,1,1.5,1',
    '2024-01-01T02:01:00+02:00,1,2,1,1.5,1',
    '2024-01-01T00:01Z,1,2,1,1.5,1',
    '2024-01-01T00:01:00,1,2,1,1.5,1',
    '2024-01-01,1,2,1,1.5,1',
    '2024-01-01T00:01:00Z,+1,2,1,1.5,1',
    '2024-01-01T00:01:00Z,01,2,1,1.5,1',
    '2024-01-01T00:01:00Z,.5,2,0.5,1.5,1',
    '2024-01-01T00:01:00Z,1.,2,1,1.5,1',
    '2024-01-01T00:01:00Z,1e0,2,1,1.5,1',
    '2024-01-01T00:01:00Z,1,2,1,1.5,-0',
    '2024-01-01T00:01:00Z,1,2,1,1.5,1\r',
  ])('leaves %s to the general parser, which accepts it', (line) => {
    expect(fast(line, '1m')).toBe('declined');
    expect(general(line, '1m')).not.toBe('rejected');
  });

  it('agrees with the general parser on generated lines of every timeframe', () => {
    const digits = (min: number, max: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const isoTime = fc
      .record({
        year: fc.integer({ min: 1965, max: 9999 }).map((y) => String(y).padStart(4, '0')),
        month: fc.oneof(two(12), two(13)),
        day: fc.oneof(two(28), two(32)),
        hour: fc.oneof(fc.constant('00'), fc.constant('00'), two(24)),
        minute: fc.oneof(fc.constant('00'), fc.constant('00'), fc.constantFrom('05', '15', '30', '45'), two(60)),
        second: fc.oneof(fc.constant('00'), fc.constant('00'), two(60)),
        fraction: fc.oneof(fc.constant(''), fc.constant(''), digits(0, 10).map((d) => `.${d}`), fc.constantFrom('.0', '.000', '.0004', '.0009', '.001')),
        sep: fc.constantFrom('T', 'T', 'T', ' ', 't'),
        zone: fc.constantFrom('Z', 'Z', 'Z', 'z', '+00:00', '', '-01:00'),
      })
      .map((t) => `${t.year}-${t.month}-${t.day}${t.sep}${t.hour}:${t.minute}:${t.second}${t.fraction}${t.zone}`);
    const epoch = fc.oneof(
      fc.integer({ min: 0, max: 4_000_000_000 }).map((m) => String(m * 60_000)),
      fc.integer({ min: 0, max: 30 }).map((m) => String(1_704_067_200_000 + m * 60_000)),
      digits(1, 18),
      fc.integer({ min: 0, max: 4 }).map((z) => '0'.repeat(z) + '1704067260000'),
    );
    const time = fc.oneof(isoTime, epoch);
    const plain = fc.tuple(fc.oneof(fc.constant('0'), digits(1, 7)), fc.oneof(fc.constant(''), digits(1, 8).map((d) => `.${d}`))).map(([i, f]) => i + f);
    const decimal = fc.oneof(
      { weight: 5, arbitrary: plain },
      { weight: 1, arbitrary: fc.constantFrom('0', '0.0', '1', '1.0', '1.00', '0.9', '1.1', '2', '10', '9.99', '0.0000001', '-0', '-1', '+1', '01', '.5', '5.', '1e2', '1E-2', 'NaN', '', ' 1', '1 ', '"1"', 'x') },
    );
    // Prices put in a valid order (low, open, close, high) half of the time, so rows pass the rules often.
    const ordered = fc.tuple(fc.array(decimal, { minLength: 4, maxLength: 4 }), decimal, fc.boolean()).map(([p, volume, order]) => {
      if (!order) return [...p, volume];
      const [low, open, close, high] = [...p].sort((a, b) => Number(a) - Number(b));
      return [open, high, low, close, volume];
    });
    const line = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(time, ordered).map(([t, d]) => [t, ...d].join(',')) },
      { weight: 1, arbitrary: fc.tuple(time, fc.array(decimal, { minLength: 0, maxLength: 7 })).map(([t, d]) => [t, ...d].join(',')) },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789-.:,TZ ') }) },
    );
    let accepted = 0;
    fc.assert(
      fc.property(line, fc.constantFrom(...CANDLE_TIMEFRAMES), (l, tf) => {
        if (agree(l, tf) !== 'declined') accepted++;
      }),
      { numRuns: 100_000 },
    );
    // The generator reaches the accepting path often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(400);
  });

  it('accepts generated valid rows of the common shape (ISO with Z or epoch ms, plain decimals)', () => {
    const price = fc.integer({ min: 1, max: 10_000_000_000 }).map((c) => (c / 100).toFixed(c % 3 === 0 ? 2 : 4));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e6 }), fc.array(price, { minLength: 4, maxLength: 4 }), price, fc.boolean(), (minute, prices, volume, asIso) => {
        const sorted = [...prices].sort((a, b) => Number(a) - Number(b));
        const ms = minute * 60_000;
        const t = asIso ? new Date(ms).toISOString() : String(ms);
        // open and close between low and high.
        const l = `${t},${sorted[1]},${sorted[3]},${sorted[0]},${sorted[2]},${volume}`;
        const f = agree(l);
        expect(f === 'declined' ? l : 'accepted').toBe('accepted');
      }),
      { numRuns: 20_000 },
    );
  });
});
