/**
 * The perpetual's context as minutes (src/domain/derivatives.ts), the import rows of
 * `mds import derivatives`, the hour of a funding settlement and the trade-flow checks: pure.
 */
import { checkTradeFlow, RowError } from '../../src/domain/csv-rows';
import { ContextMinutes, parseDerivativesRow, type PerpContext } from '../../src/domain/derivatives';
import { fundingHourOf } from '../../src/domain/ingest-settings';

const M = Date.UTC(2024, 4, 1, 12, 0);
const ctx = (oi: string, mark: string, extra: Partial<PerpContext> = {}): PerpContext => ({
  openInterest: oi,
  markPrice: mark,
  oraclePrice: '100',
  midPrice: '100.5',
  fundingRate: '0.0000125',
  premium: '0.0003',
  ...extra,
});

describe('context minutes', () => {
  it('when several updates arrive in a minute, then open interest keeps open/high/low/close and the rest is the last update', () => {
    const m = new ContextMinutes<number>();
    expect(m.update(1, ctx('10', '100'), M + 1_000)).toBeNull();
    expect(m.update(1, ctx('12.5', '101', { midPrice: null }), M + 20_000)).toBeNull();
    expect(m.update(1, ctx('9.75', '99'), M + 40_000)).toBeNull();
    expect(m.update(1, ctx('11', '102', { premium: null, fundingRate: '-0.00001' }), M + 59_999)).toBeNull();
    expect(m.close(M + 59_999)).toEqual([]);
    expect(m.close(M + 60_000)).toEqual([
      [
        1,
        {
          time: M,
          openInterestOpen: '10',
          openInterestHigh: '12.5',
          openInterestLow: '9.75',
          openInterest: '11',
          markPrice: '102',
          oraclePrice: '100',
          midPrice: '100.5',
          predictedFundingRate: '-0.00001',
          venuePremium: null,
        },
      ],
    ]);
    // Closed minutes are handed over once.
    expect(m.close(M + 120_000)).toEqual([]);
  });

  it('when a minute sees no update, then it is missing: nothing is repeated', () => {
    const m = new ContextMinutes<string>();
    m.update('a', ctx('10', '100'), M + 5_000);
    // The next update comes two minutes later: it ends the first minute, and the one between has no row.
    const ended = m.update('a', ctx('11', '101'), M + 125_000);
    expect(ended).toMatchObject({ time: M, openInterest: '10' });
    expect(m.close(M + 180_000)).toEqual([['a', expect.objectContaining({ time: M + 120_000, openInterestOpen: '11' })]]);
    expect(m.close(M + 300_000)).toEqual([]);
  });

  it('when series are recorded together, then each keeps its own minutes; an update older than the open minute is dropped', () => {
    const m = new ContextMinutes<number>();
    m.update(1, ctx('1', '10'), M + 1_000);
    m.update(2, ctx('2', '20'), M + 2_000);
    m.update(1, ctx('3', '30'), M + 61_000);
    expect(m.update(1, ctx('99', '99'), M + 59_000)).toBeNull();
    expect(m.close(M + 60_000).map(([k, r]) => [k, r.time, r.openInterest])).toEqual([[2, M, '2']]);
    expect(m.close(M + 120_000).map(([k, r]) => [k, r.time, r.openInterest])).toEqual([[1, M + 60_000, '3']]);
  });
});

describe('derivatives import rows', () => {
  it('when a row is well formed, then it is one minute exact, open interest also its open, high and low; empty mid and premium are null', () => {
    expect(parseDerivativesRow(['2024-05-01T12:00:00Z', '688.110', '14.3161', '14.32', '', '1.25e-05', ''])).toEqual({
      time: M,
      openInterestOpen: '688.11',
      openInterestHigh: '688.11',
      openInterestLow: '688.11',
      openInterest: '688.11',
      markPrice: '14.3161',
      oraclePrice: '14.32',
      midPrice: null,
      predictedFundingRate: '0.0000125',
      venuePremium: null,
    });
  });

  it.each([
    [['2024-05-01T12:00:30Z', '1', '2', '2', '2', '0', '0'], 'not aligned to 1m'],
    [['2024-05-01T12:00:00Z', '-1', '2', '2', '2', '0', '0'], 'open interest is negative'],
    [['2024-05-01T12:00:00Z', '1', '0', '2', '2', '0', '0'], 'mark price must be positive'],
    [['2024-05-01T12:00:00Z', '1', '2', 'x', '2', '0', '0'], 'oracle_price "x" is not a finite number'],
    [['2024-05-01T12:00:00Z', '1', '2', '2', '2', '0'], 'expected 7 columns, got 6'],
  ])('when a row is %j, then it is refused: %s', (cells, reason) => {
    const err = (() => {
      try {
        parseDerivativesRow(cells);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RowError);
    expect((err as Error).message).toContain(reason);
  });
});

describe('venue times and trade flow', () => {
  it('when a funding settlement is stamped off the hour, then it belongs to hour floor(t + 5 s)', () => {
    const h8 = Date.UTC(2023, 4, 23, 8);
    expect(fundingHourOf(Date.UTC(2023, 4, 23, 8, 23, 53, 40))).toBe(h8);
    expect(fundingHourOf(Date.UTC(2023, 4, 23, 7, 59, 58))).toBe(h8);
    expect(fundingHourOf(h8 - 5_000)).toBe(h8);
    expect(fundingHourOf(h8 - 5_001)).toBe(h8 - 3_600_000);
    expect(fundingHourOf(h8 + 3_600_000 - 5_001)).toBe(h8);
    expect(fundingHourOf(Date.UTC(2023, 6, 12, 18, 0, 5, 457))).toBe(Date.UTC(2023, 6, 12, 18));
  });

  it('when trade flow is checked, then volumes are canonical and not negative, trades a whole number', () => {
    expect(checkTradeFlow({ quoteVolume: '2434.19055334', trades: '308', takerBuyVolume: '1756.874', takerBuyQuoteVolume: '28.460' })).toEqual({
      quoteVolume: '2434.19055334',
      trades: '308',
      takerBuyVolume: '1756.874',
      takerBuyQuoteVolume: '28.46',
    });
    expect(checkTradeFlow({})).toEqual({});
    expect(() => checkTradeFlow({ takerBuyVolume: '-1' })).toThrow('takerBuyVolume is negative');
    expect(() => checkTradeFlow({ trades: '1.5' })).toThrow('trades "1.5" is not a whole number');
  });
});
