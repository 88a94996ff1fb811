/**
 * Data quality over fixtures with known gaps, a spike, a 1% basis and a stale series,
 * through REST and GraphQL, with tier filtering.
 */
import { CandlesRepository } from '../../src/db/candles.repository';
import { csvFile } from '../helpers/csv';
import { startTestServer, type TestServer } from '../helpers/server';
import type { Json } from '../helpers/json';

const H = 3_600_000;
const NOW = Date.UTC(2026, 0, 8, 0, 10);
const START = Date.UTC(2026, 0, 1, 1); // first whole hour of the 7-day window
const iso = (ms: number) => new Date(ms).toISOString();

function hourly(n: number, close: (i: number) => number, skip: number[] = []): string[] {
  const rows = ['time,open,high,low,close,volume'];
  for (let i = 0; i < n; i++) {
    if (skip.includes(i)) continue;
    const c = close(i);
    rows.push(`${iso(START + i * H)},${c},${c},${c},${c},1`);
  }
  return rows;
}

describe('quality', () => {
  let srv: TestServer;
  let pro: string;
  let free: string;
  const get = (path: string, key = pro) => srv.getJson(path, key);
  const calm = (i: number) => Number((100 * (1 + 0.001 * Math.sin(i))).toFixed(6));

  beforeAll(async () => {
    srv = await startTestServer({ clock: () => NOW });
    const s = srv.services;
    const load = async (exchange: string, symbol: string, rows: string[]) => {
      const r = await s.importer.importCandles({ exchange, symbol }, '1h', csvFile(rows));
      await s.recompute.afterCandlesChanged(r.seriesId, '1h', r.from!, r.to!, NOW);
    };
    await load('spot', 'GAP-USDT', hourly(167, calm, [10, 11, 12]));
    await load('spot', 'SPK-USDT', hourly(167, (i) => (i === 80 ? calm(i) * 1.5 : calm(i))));
    await load('spot', 'BAS-USDT', hourly(167, calm));
    await load('perp', 'BAS-USDT', hourly(167, (i) => Number((calm(i) * 1.01).toFixed(6))));
    await load('spot', 'OLD-USDT', hourly(157, calm));
    await s.quality.computeAll(NOW);
    [pro, free] = await Promise.all([srv.key('pro'), srv.key('free')]);
  }, 120_000);
  afterAll(() => srv?.stop());

  const oneHour = async (exchange: string, symbol: string) => (await get(`/v1/quality?symbol=${symbol}&exchange=${exchange}&timeframe=1h`)).body.timeframes['1h'];

  it('when three candles are missing, then gap_rate_score is 164/167 and DQS follows the weights', async () => {
    const q = await oneHour('spot', 'GAP-USDT');
    expect(q).toEqual({
      dqs: (0.3 * (164 / 167) + 0.7).toFixed(4),
      computed_at: '2026-01-08T00:10:00+00:00',
      components: { gap_rate_score: (164 / 167).toFixed(4), anomaly_score: '1.0000', consistency_score: '1.0000', freshness_score: '1.0000' },
    });
  });

  it('when one close spikes, then the two returns around it lower anomaly_score', async () => {
    expect((await oneHour('spot', 'SPK-USDT')).components.anomaly_score).toBe((1 - 2 / 166).toFixed(4));
  });

  it('when perp trades 1% over spot, then consistency_score is 0.6667 on both venues', async () => {
    expect((await oneHour('perp', 'BAS-USDT')).components.consistency_score).toBe('0.6667');
    expect((await oneHour('spot', 'BAS-USDT')).components.consistency_score).toBe('0.6667');
  });

  it('when every series is scored in one run, then each pair\'s mean basis is read once per timeframe, not once per series', async () => {
    const s = srv.services;
    const basisReads = jest.spyOn(CandlesRepository.prototype, 'meanBasis');
    try {
      const perp = (await s.store.series.idOf({ exchange: 'perp', symbol: 'BAS-USDT' }))!;
      const spot = (await s.store.series.idOf({ exchange: 'spot', symbol: 'BAS-USDT' }))!;
      const timeframes = await s.quality.computeSeries(perp, NOW);
      await s.quality.computeSeries(spot, NOW);
      expect(basisReads).toHaveBeenCalledTimes(2 * timeframes);
      basisReads.mockClear();
      await s.quality.computeAll(NOW);
      expect(basisReads).toHaveBeenCalledTimes(timeframes);
    } finally {
      basisReads.mockRestore();
    }
    expect((await oneHour('spot', 'BAS-USDT')).components.consistency_score).toBe('0.6667');
  });

  it('when the latest candle is older than the SLA, then freshness_score is 0', async () => {
    const q = await oneHour('spot', 'OLD-USDT');
    expect(q.components.freshness_score).toBe('0.0000');
    expect(q.components.gap_rate_score).toBe((157 / 167).toFixed(4));
  });

  it('when timeframe is omitted, then every timeframe the plan allows; free sees 1h, 4h and 1d only', async () => {
    const gap = await get('/v1/quality?symbol=GAP-USDT&exchange=spot', free);
    expect(Object.keys(gap.body.timeframes)).toEqual(['1h', '4h', '1d']);
    const r = await get('/v1/quality?symbol=GAP-USDT&exchange=spot&timeframe=1m', free);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('TIER_LIMIT_EXCEEDED');
  });

  it.each([
    ['a market with no quality yet', '/v1/quality?symbol=NONE-USDT&exchange=spot', 404, 'QUALITY_NOT_FOUND'],
    ['a timeframe with no candles', '/v1/quality?symbol=GAP-USDT&exchange=spot&timeframe=1m', 404, 'QUALITY_NOT_FOUND'],
    ['an unknown timeframe', '/v1/quality?symbol=GAP-USDT&exchange=spot&timeframe=2h', 400, 'INVALID_TIMEFRAME'],
    ['an unknown exchange', '/v1/quality?symbol=GAP-USDT&exchange=x', 400, 'INVALID_EXCHANGE'],
  ])('when %s (%s), then %d %s', async (_w, path, status, code) => {
    const r = await get(path);
    expect(r.status).toBe(status);
    expect(r.body.error).toBe(code);
  });

  it('when GraphQL asks, then the same record plus the band and the missing intervals', async () => {
    const rest = await oneHour('spot', 'GAP-USDT');
    const res = await srv.gql(
      '{ market(exchange: "spot", symbol: "GAP-USDT") { quality(timeframe: "1h") { timeframe dqs band computedAt components { gapRateScore anomalyScore consistencyScore freshnessScore } missingIntervals { start end } } } }',
      undefined,
      pro,
    );
    const [q] = ((await res.json()) as Json).data.market.quality;
    expect(q).toEqual({
      timeframe: '1h',
      dqs: rest.dqs,
      band: 'production-ready',
      computedAt: rest.computed_at,
      components: {
        gapRateScore: rest.components.gap_rate_score,
        anomalyScore: rest.components.anomaly_score,
        consistencyScore: rest.components.consistency_score,
        freshnessScore: rest.components.freshness_score,
      },
      missingIntervals: [{ start: '2026-01-01T11:00:00+00:00', end: '2026-01-01T14:00:00+00:00' }],
    });
  });
});
