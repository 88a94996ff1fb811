/**
 * prisma/schema.prisma mirrors the SQL migrations by hand. Every model is read through the
 * generated client on a migrated database, so a column that is missing or misnamed on
 * either side fails here.
 */
import { databaseCases, useServices } from '../helpers/databases';

describe.each(databaseCases())('Prisma models against the migrated schema on $name', (kase) => {
  const services = useServices(kase);

  it('when each model is read with all its fields, then the database has every column', async () => {
    const p = services().store.db.prisma;
    const series = await p.series.create({ data: { exchange: 'perp', symbol: 'DRIFT-USDT' } });
    const t = new Date('2024-01-01T00:00:00Z');
    // Candles and features are partitioned by time: the service's writers create what they write in.
    await services().store.partitions.ensure(['1m', '1h'].map((timeframe) => ({ timeframe: timeframe as '1m' | '1h', fromMs: t.getTime(), toMs: t.getTime() })));
    await p.candle.create({ data: { seriesId: series.id, timeframe: '1m', time: t, open: '1', high: '1', low: '1', close: '1', volume: '1', trades: 3n, takerBuyVolume: '0.5' } });
    await p.derivativesRow.create({
      data: {
        seriesId: series.id, timeframe: '1m', time: t, openInterestOpen: '10', openInterestHigh: '11', openInterestLow: '9', openInterest: '10.5',
        markPrice: '100', oraclePrice: '100.1', midPrice: null, predictedFundingRate: '0.0000125', venuePremium: null,
      },
    });
    await p.fundingRate.create({ data: { seriesId: series.id, time: t, rate: '0.0001' } });
    await p.featureRow.create({ data: { seriesId: series.id, timeframe: '1h', time: t, rsi_14: 50, premium_zscore: null } });
    await p.qualityRecord.create({
      data: {
        seriesId: series.id, timeframe: '1h', computedAt: t, dqs: 1, gapRateScore: 1, anomalyScore: 1,
        consistencyScore: 1, freshnessScore: 1, expectedCandles: 1, presentCandles: 1, missingIntervals: [],
      },
    });
    await p.apiKey.create({ data: { keyHash: 'h'.repeat(64), keyHint: 'qp_abcdef…', userId: '00000000-0000-4000-8000-000000000009', tier: 'free' } });
    await p.venueGap.create({ data: { seriesId: series.id, timeframe: '1m', startTime: t, endTime: new Date(t.getTime() + 60_000) } });
    await p.ingestStatus.create({ data: { seriesId: series.id, connected: true, reportedAt: t } });
    expect(await p.venueGap.findFirst({ where: { seriesId: series.id } })).toMatchObject({ recordedAt: expect.any(Date) });
    expect(await p.ingestStatus.findFirst({ where: { seriesId: series.id } })).toMatchObject({ connected: true });
    expect(await p.candle.findFirst({ where: { seriesId: series.id } })).toMatchObject({ derived: false, trades: 3n, quoteVolume: null });
    expect(String((await p.derivativesRow.findFirst({ where: { seriesId: series.id } }))?.openInterest)).toBe('10.5');
    expect(await p.fundingRate.findFirst({ where: { seriesId: series.id } })).not.toBeNull();
    const f = await p.featureRow.findFirst({ where: { seriesId: series.id } });
    expect(String(f?.rsi_14)).toBe('50');
    expect(f?.macd).toBeNull();
    expect(await p.qualityRecord.findFirst({ where: { seriesId: series.id } })).toMatchObject({ missingIntervals: [] });
    expect(await p.apiKey.findFirst({ where: { keyHash: 'h'.repeat(64) } })).toMatchObject({ revokedAt: null, label: null });
    // A watermark's version comes from the sequence; the epoch row was made by the migration.
    await p.watermark.create({ data: { seriesId: series.id, timeframe: '1m', periodStart: t } });
    expect(await p.watermark.findFirst({ where: { seriesId: series.id, timeframe: '1m' } })).toMatchObject({ periodStart: t, version: expect.any(BigInt) });
    expect(await p.watermarkEpoch.findFirst()).toMatchObject({ id: true, databaseId: expect.stringMatching(/^[0-9a-f-]{36}$/), version: expect.any(BigInt) });
  });
});
