/**
 * The REST serializers as requests use them: a page's JSON bytes equal what JSON.stringify would
 * write of its rows (candles from the database's text rows, funding from rendered objects,
 * features from rows the database rendered into the serializer's template), its table's cells,
 * and the documented schemas.
 */
import { candleOf } from '../../src/domain/candle-text';
import type { CandleRequest, FundingRate, TextRow } from '../../src/domain/market';
import { joinedBytes } from '../../src/encoding/json-rows';
import { CANDLE_PAGE_SCHEMA, CANDLE_REPRESENTATION } from '../../src/rest/serializers/candle.serializer';
import { FEATURE_REPRESENTATION, featureRowTemplate } from '../../src/rest/serializers/feature.serializer';
import { FUNDING_RATE, FUNDING_REPRESENTATION, fundingCsvColumns } from '../../src/rest/serializers/funding.serializer';
import { qualityBody } from '../../src/rest/serializers/quality.serializer';

/** Text rows as the candle page read gives them: epoch seconds, NUMERIC texts, the trade flow. */
const ROWS: TextRow[] = [
  ['1704067200', '1.5', '2', '0.5', '1.5000004', '0', '12.5', '17', null, '3'],
  ['1704067260.25', '43000.1234565', '43100', '42999', '43050', '1e-7', null, null, null, null],
];
const q = (fields?: CandleRequest['fields']): CandleRequest => ({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1m', start: 0, end: 0, limit: 2, fields });
const page = (data: TextRow[], nextStart: string | null = null) => ({ count: data.length, nextStart, data });

describe('candles over REST', () => {
  it('writes a page of text rows as JSON.stringify would write its candles, snake_case flow fields in the order asked, and the schema accepts it', () => {
    const body = Buffer.from(CANDLE_REPRESENTATION.json(q(), page(ROWS, 't'))).toString();
    const candles = ROWS.map((r) => candleOf(r, false));
    expect(body).toBe(JSON.stringify({ symbol: 'BTC-USDT', exchange: 'spot', timeframe: '1m', count: 2, next_start: 't', data: candles }));
    expect(CANDLE_PAGE_SCHEMA.safeParse(JSON.parse(body)).success).toBe(true);
    const flow = JSON.parse(Buffer.from(CANDLE_REPRESENTATION.json(q(['taker_buy_quote_volume', 'trades']), page(ROWS))).toString());
    expect(flow.data[0]).toEqual({ ...candles[0], taker_buy_quote_volume: '3.000000', trades: '17' });
    expect(Object.keys(flow.data[1])).toEqual(['time', 'open', 'high', 'low', 'close', 'volume', 'taker_buy_quote_volume', 'trades']);
    expect(flow.data[1].trades).toBeNull();
    expect(Buffer.from(CANDLE_REPRESENTATION.json(q(), page([]))).toString()).toBe('{"symbol":"BTC-USDT","exchange":"spot","timeframe":"1m","count":0,"next_start":null,"data":[]}');
  });

  it('gives the CSV and dataframe table the same strings, trades a whole number', () => {
    const table = CANDLE_REPRESENTATION.table(q(['trades']), page(ROWS));
    expect(table.columns).toEqual(['time', 'open', 'high', 'low', 'close', 'volume', 'trades']);
    expect(table.cells(ROWS[1])).toEqual([...Object.values(candleOf(ROWS[1], false)), null]);
    expect([table.integer?.('trades'), table.integer?.('close'), table.scaleOf('close')]).toEqual([true, false, 6]);
  });
});

describe('funding and features over REST', () => {
  it('names funding fields in snake_case, leaves out the normalized ones when absent, and writes null as null', () => {
    const plain: FundingRate = { time: 't', rate: '0.00000100', intervalHours: '8', rateHourly: '0.00000013' };
    const normalized: FundingRate = { ...plain, rateNormalized: null, premium: '0.00010000' };
    expect(FUNDING_RATE.json(plain)).toBe('{"time":"t","rate":"0.00000100","interval_hours":"8","rate_hourly":"0.00000013"}');
    expect(fundingCsvColumns({ normalized: false } as never)).toEqual(['time', 'rate']);
    const request = { symbol: 'BTC-USDT', exchange: 'perp', start: 0, end: 0, normalized: true };
    expect(FUNDING_REPRESENTATION.table(request, { count: 1, nextStart: null, data: [normalized] }).cells(normalized)).toEqual(['t', '0.00000100', null, '0.00010000']);
    const body = JSON.parse(Buffer.from(FUNDING_REPRESENTATION.json(request, { count: 2, nextStart: null, data: [plain, normalized] })).toString());
    expect(body.data).toEqual([{ time: 't', rate: '0.00000100' }, { time: 't', rate: '0.00000100', rate_normalized: null, premium: '0.00010000' }]);
  });

  it('appends the interval and the hourly rate in the order `fields` asks, after the normalized ones', () => {
    const row: FundingRate = { time: 't', rate: '0.00008000', intervalHours: '8', rateHourly: '0.00001000', rateNormalized: '1.5', premium: null };
    const plain = { symbol: 'BTC-USDT', exchange: 'binance-perp', start: 0, end: 0, normalized: false, fields: ['rate_hourly', 'interval_hours'] } as const;
    const text = Buffer.from(FUNDING_REPRESENTATION.json({ ...plain, fields: [...plain.fields] }, { count: 1, nextStart: null, data: [{ ...row, rateNormalized: undefined, premium: undefined }] })).toString();
    expect(text).toContain('{"time":"t","rate":"0.00008000","rate_hourly":"0.00001000","interval_hours":"8"}');
    const normalized = { ...plain, normalized: true, fields: ['interval_hours' as const] };
    expect(fundingCsvColumns(normalized)).toEqual(['time', 'rate', 'rate_normalized', 'premium', 'interval_hours']);
    const table = FUNDING_REPRESENTATION.table(normalized, { count: 1, nextStart: null, data: [row] });
    expect(table.cells(row)).toEqual(['t', '0.00008000', '1.5', null, '8']);
    expect(fundingCsvColumns({ ...plain, fields: ['interval_hours'] })).toEqual(['time', 'rate', 'interval_hours']);
    expect(FUNDING_REPRESENTATION.table({ ...plain, fields: ['interval_hours'] }, { count: 1, nextStart: null, data: [row] }).cells(row)).toEqual(['t', '0.00008000', '8']);
    expect([table.integer?.('interval_hours'), table.scaleOf('rate_hourly')]).toEqual([true, 8]);
  });

  it('asks the database for rows in a template of the request\'s names, and joins them into the page', () => {
    const request = { symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1m', names: ['rsi_14', 'vwap_20'], start: 0, end: 0 } as const;
    expect(featureRowTemplate(request as never)).toEqual(['{"time":', ',"rsi_14":', ',"vwap_20":', '}']);
    const rows = [{ time: 't1', text: '{"time":"t1","rsi_14":"50.100000","vwap_20":null}' }];
    const body = Buffer.from(FEATURE_REPRESENTATION.json(request as never, { count: 1, nextStart: 't2', data: rows })).toString();
    expect(JSON.parse(body)).toEqual({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1m', features: ['rsi_14', 'vwap_20'], count: 1, next_start: 't2', data: [JSON.parse(rows[0].text)] });
  });

  it('writes rows of JSON text as the UTF-8 bytes of their comma-joined text, past the first buffer', () => {
    const rows = ['{"a":"1"}', '{"é":"ünï"}', `{"long":"${'9'.repeat(5_000)}"}`, '{"emoji":"📈"}', '{}'];
    expect(Buffer.from(joinedBytes(rows)).toString('utf8')).toBe(rows.join(','));
    expect(joinedBytes([]).length).toBe(0);
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
