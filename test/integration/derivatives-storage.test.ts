/**
 * Storage of the perpetual's context and of the candles' trade flow, on PGlite and PostgreSQL:
 * 1m context rows upserted and rolled up (open interest as OHLC, the rest the last minute's),
 * values exact to the digit, coverage only where rows exist; trade flow stored, summed by the
 * rollups and null in a bucket where any candle lacks it.
 */
import { oneBatch } from '../../src/db/bulk-upsert';
import { CANDLE_TEXT_COLUMNS, candleOf } from '../../src/domain/candle-text';
import type { DerivativesInput } from '../../src/domain/derivatives';
import type { CandleInput } from '../../src/domain/csv-rows';
import { databaseCases, useServices } from '../helpers/databases';

const MIN = 60_000;
const T = Date.UTC(2024, 2, 1, 10, 0);

const minute = (i: number, oi: [string, string, string, string], mark: string, extra: Partial<DerivativesInput> = {}): DerivativesInput => ({
  time: T + i * MIN,
  openInterestOpen: oi[0],
  openInterestHigh: oi[1],
  openInterestLow: oi[2],
  openInterest: oi[3],
  markPrice: mark,
  oraclePrice: String(Number(mark) + 0.5),
  midPrice: mark,
  predictedFundingRate: `0.0000${i + 1}`,
  venuePremium: `-0.000${i + 1}`,
  ...extra,
});

describe.each(databaseCases())('derivatives and trade-flow storage on $name', (kase) => {
  const services = useServices(kase);

  it('when five minutes of context are stored and rolled up, then 1m is exact and 5m holds OI open/high/low/close and the last prices', async () => {
    const s = services();
    const id = await s.store.series.ensure({ exchange: 'perp', symbol: 'CTX-USDT' });
    const rows = [
      minute(0, ['100', '101.5', '99', '101'], '64000.5'),
      minute(1, ['101', '103', '101', '102.123456789'], '64010'),
      minute(2, ['102', '102', '95.25', '96'], '63990.25', { midPrice: null }),
      minute(3, ['96', '97', '96', '97'], '63995'),
      minute(4, ['97', '98', '97', '97.5'], '64001.75', { midPrice: null, venuePremium: null }),
    ];
    await s.store.transaction(async (tx) => {
      await tx.derivatives.upsert(id, oneBatch(rows));
      await tx.derivatives.rollUp(id, T, T + 4 * MIN, T + 5 * MIN);
    });
    const m1 = (await s.store.derivatives.pages([id], '1m', new Date(T), new Date(T + 4 * MIN), 10)).get(id)!;
    expect(m1[1]).toEqual({
      series_id: id,
      time: '2024-03-01T10:01:00+00:00',
      openInterest: '102.123457',
      openInterestOpen: '101.000000',
      openInterestHigh: '103.000000',
      openInterestLow: '101.000000',
      // 102.123456789 x 64010 = 6536922.46906389, rounded from the exact product
      openInterestValue: '6536922.469064',
      markPrice: '64010.000000',
      oraclePrice: '64010.500000',
      midPrice: '64010.000000',
      predictedFundingRate: '0.00002000',
      venuePremium: '-0.00020000',
    });
    expect(m1[2].midPrice).toBeNull();
    const m5 = (await s.store.derivatives.pages([id], '5m', new Date(T), new Date(T), 10)).get(id)!;
    expect(m5).toEqual([
      expect.objectContaining({
        time: '2024-03-01T10:00:00+00:00',
        openInterestOpen: '100.000000',
        openInterestHigh: '103.000000',
        openInterestLow: '95.250000',
        openInterest: '97.500000',
        markPrice: '64001.750000',
        midPrice: null,
        predictedFundingRate: '0.00005000',
        venuePremium: null,
      }),
    ]);
    // The hour has not closed: no 1h row yet.
    expect((await s.store.derivatives.pages([id], '1h', new Date(T), new Date(T), 10)).get(id)).toBeUndefined();
    // A minute written again replaces its values and re-rolls the bucket.
    await s.store.transaction(async (tx) => {
      await tx.derivatives.upsert(id, oneBatch([minute(4, ['97', '120', '97', '110'], '64001.75')]));
      await tx.derivatives.rollUp(id, T + 4 * MIN, T + 4 * MIN, T + 5 * MIN);
    });
    const again = (await s.store.derivatives.pages([id], '5m', new Date(T), new Date(T), 10)).get(id)!;
    expect(again[0]).toMatchObject({ openInterestHigh: '120.000000', openInterest: '110.000000', midPrice: '64001.750000' });
  });

  it('when /v1/markets coverage is read, then only a series with context rows has a derivatives entry', async () => {
    const s = services();
    const ctx = (await s.store.series.idOf({ exchange: 'perp', symbol: 'CTX-USDT' }))!;
    const none = await s.store.series.ensure({ exchange: 'perp', symbol: 'BARE-USDT' });
    const cov = await s.store.candles.coverage([ctx, none], new Date(T + 10 * MIN));
    expect(cov.filter((c) => c.timeframe === 'derivatives')).toEqual([
      { seriesId: ctx, timeframe: 'derivatives', first: '2024-03-01T10:00:00+00:00', last: '2024-03-01T10:04:00+00:00', hours: null },
    ]);
    const markets = await s.markets.summariesOf([{ exchange: 'perp', symbol: 'CTX-USDT' }]);
    expect(markets[0].coverage).toEqual([{ timeframe: 'derivatives', first: '2024-03-01T10:00:00+00:00', last: '2024-03-01T10:04:00+00:00' }]);
  });

  it('when candles with trade flow are rolled up, then 5m sums them; one candle without it makes the bucket null', async () => {
    const s = services();
    const id = await s.store.series.ensure({ exchange: 'spot', symbol: 'FLOW-USDT' });
    const candle = (i: number, flow: Partial<CandleInput>): CandleInput => ({ time: T + i * MIN, open: '10', high: '11', low: '9', close: '10.5', volume: '2', ...flow });
    const withFlow = (i: number) => candle(i, { quoteVolume: '21.1', trades: String(10 + i), takerBuyVolume: '1.25', takerBuyQuoteVolume: '13.1' });
    const rows = [0, 1, 2, 3, 4].map(withFlow).concat([5, 6, 7, 8].map(withFlow), [candle(9, {})]);
    await s.store.transaction(async (tx) => {
      await tx.candles.upsert(id, '1m', oneBatch(rows));
      await tx.candles.rollUp({ seriesId: id, from: '1m', startMs: T, endMs: T + 9 * MIN }, T + 10 * MIN);
    });
    const candles = async (tf: '1m' | '5m', from: number, to: number, flow: boolean) =>
      ((await s.store.candles.pages([id], tf, new Date(from), new Date(to), 10, flow)).get(id) ?? []).map((r) => candleOf(r, flow));
    const five = await candles('5m', T, T + 5 * MIN, true);
    expect(five.map((c) => [c.trades, c.quoteVolume, c.takerBuyVolume, c.takerBuyQuoteVolume])).toEqual([
      ['60', '105.500000', '6.250000', '65.500000'],
      [null, null, null, null],
    ]);
    const one = await candles('1m', T + 9 * MIN, T + 9 * MIN, true);
    expect(one[0]).toMatchObject({ close: '10.500000', trades: null, quoteVolume: null });
    // Without asking for the flow, the candle is what it always was.
    const [plain] = (await s.store.candles.pages([id], '5m', new Date(T), new Date(T), 10, false)).get(id)!;
    expect(plain).toHaveLength(CANDLE_TEXT_COLUMNS);
    expect(Object.keys(candleOf(plain, false))).toEqual(['time', 'open', 'high', 'low', 'close', 'volume']);
  });
});
