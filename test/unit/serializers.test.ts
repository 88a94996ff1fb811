/** The REST serializers: one table per shape gives JSON text equal to what JSON.stringify would write, CSV cells, and the schema. */
import { joinedBytes } from '../../src/encoding/ascii-text';
import { NO_JSON_ROWS, type Candle, type FundingRate } from '../../src/domain/market';
import { CANDLE, CANDLE_PAGE_SCHEMA, candlePageJson } from '../../src/rest/serializers/candle.serializer';
import { FUNDING_RATE, fundingCsvCells, fundingCsvColumns } from '../../src/rest/serializers/funding.serializer';
import { featurePageJson } from '../../src/rest/serializers/feature.serializer';
import { qualityBody } from '../../src/rest/serializers/quality.serializer';
import { pageJson } from '../../src/rest/serializers/shape';

const candle: Candle = { time: '2024-01-01T00:00:00+00:00', open: '1.000000', high: '2.000000', low: '0.500000', close: '1.500000', volume: '0.000000' };

describe('restShape', () => {
  it('writes a candle row as JSON.stringify would, keys in the table\'s order', () => {
    expect(CANDLE.json(candle)).toBe(JSON.stringify(candle));
    expect(CANDLE.names).toEqual(['time', 'open', 'high', 'low', 'close', 'volume']);
    expect(CANDLE.csvCells(candle)).toEqual(Object.values(candle));
  });

  it('names funding fields in snake_case, leaves out the normalized ones when absent, and writes null as null', () => {
    const plain: FundingRate = { time: 't', rate: '0.00000100' };
    const normalized: FundingRate = { time: 't', rate: '0.00000100', rateNormalized: null, premium: '0.00010000' };
    expect(FUNDING_RATE.json(plain)).toBe('{"time":"t","rate":"0.00000100"}');
    expect(FUNDING_RATE.json(normalized)).toBe(JSON.stringify({ time: 't', rate: '0.00000100', rate_normalized: null, premium: '0.00010000' }));
    expect(fundingCsvColumns({ normalized: false } as never)).toEqual(['time', 'rate']);
    expect(fundingCsvCells({ normalized: true } as never)(normalized)).toEqual(['t', '0.00000100', null, '0.00010000']);
  });

  it('renders a page whose JSON the documented schema accepts, its rows\' bytes as the text page would hold them', () => {
    const q = { symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', start: 0, end: 0, limit: 1 } as const;
    const text = candlePageJson(q, { count: 1, nextStart: null, json: Buffer.from(CANDLE.json(candle)) }).toString();
    const body = JSON.parse(text);
    expect(body).toEqual({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', count: 1, next_start: null, data: [candle] });
    expect(CANDLE_PAGE_SCHEMA.safeParse(body).success).toBe(true);
    const head = { symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1h', count: 1, next_start: null };
    expect(text).toBe(pageJson(head, [CANDLE.json(candle)]));
    expect(candlePageJson(q, NO_JSON_ROWS).toString()).toBe(pageJson({ ...head, count: 0 }, []));
  });

  it('writes rows of JSON text as the UTF-8 bytes of their comma-joined text, past the first buffer', () => {
    const rows = ['{"a":"1"}', '{"é":"ünï"}', `{"long":"${'9'.repeat(5_000)}"}`, '{"emoji":"📈"}', '{}'];
    expect(joinedBytes(rows).toString('utf8')).toBe(rows.join(','));
    expect(joinedBytes([]).length).toBe(0);
    const q = { symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1m', names: ['rsi_14'], start: 0, end: 0, limit: 2 };
    const page = { count: 2, nextStart: null, data: ['{"time":"t1","rsi_14":"50.1"}', '{"time":"t2","rsi_14":null}'] };
    const head = { symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1m', features: ['rsi_14'], count: 2, next_start: null };
    expect(featurePageJson(q as never, page).toString()).toBe(pageJson(head, page.data));
  });

  it('renders nested shapes by their own table (quality components)', () => {
    const body = qualityBody({ exchange: 'spot', symbol: 'BTC-USDT' }, [
      {
        timeframe: '1h',
        dqs: '0.9000',
        band: 'minor issues',
        computedAt: 't',
        components: { gapRateScore: '1.0000', anomalyScore: '0.9000', consistencyScore: '1.0000', freshnessScore: '0.0000' },
        expectedCandles: 1,
        presentCandles: 1,
        missingIntervals: [],
      },
    ]);
    expect(body).toEqual({
      exchange: 'spot',
      symbol: 'BTC-USDT',
      timeframes: { '1h': { dqs: '0.9000', computed_at: 't', components: { gap_rate_score: '1.0000', anomaly_score: '0.9000', consistency_score: '1.0000', freshness_score: '0.0000' } } },
    });
  });
});
