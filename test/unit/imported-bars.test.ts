/** ImportedBars: the rollups a first import folds in memory, valued as ROLLUP_SQL stores them. */
import { BinaryRows, rowsAsText } from '../../src/encoding/binary-rows';
import { ImportedBars, type RollupBars } from '../../src/domain/imported-bars';
import { scaledDecimal } from '../../src/domain/scaled-decimal';

const MINUTE = 60_000;

function values(...texts: string[]): Float64Array {
  const out = new Float64Array(10);
  texts.forEach((t, i) => expect(scaledDecimal(t, out, 2 * i)).toBe(true));
  return out;
}

/** Bar `i`'s five fields as the text of the numerics written. */
function barText(bars: RollupBars, i: number): string {
  const out = new BinaryRows(64);
  out.row(5);
  for (let k = 0; k < 5; k++) out.scaled(bars.mantissa(i, k), bars.scale(i, k));
  return rowsAsText(out.take(), ['numeric', 'numeric', 'numeric', 'numeric', 'numeric'])[0].join(',');
}

describe('imported bars', () => {
  it('when a text is not a plain decimal of exact digits, then it is not parsed', () => {
    const out = new Float64Array(2);
    expect(scaledDecimal('0.50', out, 0)).toBe(true);
    expect([...out]).toEqual([50, 2]);
    for (const t of ['1e3', '12.', '', '-', '1.2.3', '123456789012345678901']) expect(scaledDecimal(t, out, 0)).toBe(false);
  });

  it('when minutes fold into 5m, then open is the first, close the last, high and low the extremes, volume the sum at the largest scale', () => {
    const bars = new ImportedBars('1m');
    bars.add(0, values('10', '12', '9', '11', '1.5'));
    bars.add(MINUTE, values('11', '12', '8.5', '10', '2.25'));
    bars.add(3 * MINUTE, values('10', '11', '9', '10.5', '0.25'));
    bars.add(5 * MINUTE, values('10.5', '10.5', '10.5', '10.5', '1'));
    // Now before the second bucket closes: only the first is a rollup.
    const kept = bars.finish(10 * MINUTE - 1)!;
    const fiveMinutes = kept.rollups.find((r) => r.timeframe === '5m')!;
    expect(fiveMinutes.length).toBe(1);
    expect(fiveMinutes.time(0)).toBe(0);
    expect(barText(fiveMinutes, 0)).toBe('10,12,8.5,10.5,4.00');
    expect(Array.from(kept.own.history(null, 0, 10).close)).toEqual([11, 10, 10.5, 10.5]);
    expect(Array.from(fiveMinutes.history().history(null, 0, 10).volume)).toEqual([4]);
    expect(kept.rollups.find((r) => r.timeframe === '1d')!.length).toBe(0);
  });

  it('when a row is not after the one before, then nothing is kept', () => {
    const bars = new ImportedBars('1m');
    bars.add(MINUTE, values('1', '1', '1', '1', '1'));
    bars.add(MINUTE, values('1', '1', '1', '1', '1'));
    expect(bars.usable).toBe(false);
    expect(bars.finish(Date.now())).toBeNull();
  });
});
