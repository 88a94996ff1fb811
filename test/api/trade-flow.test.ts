/**
 * The candles' trade flow, opt-in: GET /v1/ohlcv with `fields` appends the asked values in order
 * (JSON, CSV, Arrow and Parquet with trades as Int64), rollups sum them and are null where a candle lacks
 * them; without `fields` (or with it empty) the answer and its ETag are what they were; an
 * unknown name is refused; GraphQL candles select the same values in rows and columns.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import nodePath from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC, Type } from '@uwdata/flechette';
import type { CandleInput } from '../../src/domain/csv-rows';
import type { Json } from '../helpers/json';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 10, 12, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', '+00:00');

/** Minute i: with the trade flow a venue sends, but for minute 7 (as imported). */
function candle(i: number): CandleInput {
  const base = { time: T + i * MIN, open: '100', high: '101.5', low: '99.25', close: '100.75', volume: '2.5' };
  if (i === 7) return base;
  return { ...base, quoteVolume: `250.12345${i}`, trades: String(40 + i), takerBuyVolume: '1.1234567', takerBuyQuoteVolume: `112.5${i}` };
}

describe('trade flow on candles', () => {
  const clock = manualClock(T + 30 * MIN);
  let srv: TestServer;
  let key: string;
  const path = (p: Record<string, string | number>) => `/v1/ohlcv?${new URLSearchParams(Object.entries({ exchange: 'spot', symbol: 'BTC-USDT', timeframe: '1m', start: T, end: T + 9 * MIN, ...p }).map(([k, v]): [string, string] => [k, String(v)]))}`;

  beforeAll(async () => {
    srv = await startTestServer({ clock: clock.now });
    key = await srv.key('pro');
    const id = await srv.services.store.series.ensure({ exchange: 'spot', symbol: 'BTC-USDT' });
    await srv.services.writer.candles({ id, symbol: 'BTC-USDT' }, '1m', Array.from({ length: 10 }, (_, i) => candle(i)));
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('when fields are asked, then each row gains them after its candle, in the order asked: trades whole, volumes at 6 places, null where none', async () => {
    const r = await srv.getJson(path({ fields: 'taker_buy_volume,trades,quote_volume,taker_buy_quote_volume,trades' }), key);
    expect(r.status).toBe(200);
    const rows = (r.body as Json).data;
    expect(rows[1]).toEqual({
      time: iso(T + MIN),
      open: '100.000000',
      high: '101.500000',
      low: '99.250000',
      close: '100.750000',
      volume: '2.500000',
      taker_buy_volume: '1.123457',
      trades: '41',
      quote_volume: '250.123451',
      taker_buy_quote_volume: '112.510000',
    });
    expect(rows[7]).toMatchObject({ trades: null, quote_volume: null, taker_buy_volume: null, taker_buy_quote_volume: null });
  });

  it('when fields is absent or empty, then the body and its ETag are those of a read without it; the candle part of a fields read is the same bytes', async () => {
    const plain = await srv.rest(path({}), { key });
    const empty = await srv.rest(`${path({})}&fields=`, { key });
    const withFields = await srv.rest(path({ fields: 'trades' }), { key });
    const text = await plain.text();
    expect(await empty.text()).toBe(text);
    expect(empty.headers.get('etag')).toBe(plain.headers.get('etag'));
    expect(withFields.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    expect((await withFields.text()).replace(/,"trades":(?:"\d+"|null)/g, '')).toBe(text);
    expect(Object.keys((JSON.parse(text) as Json).data[0])).toEqual(['time', 'open', 'high', 'low', 'close', 'volume']);
  });

  it('when an unknown field is asked, then 400 INVALID_PARAMETER naming it', async () => {
    const r = await srv.getJson(path({ fields: 'trades,taker_sell_volume' }), key);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'INVALID_PARAMETER', message: expect.stringContaining('taker_sell_volume') });
  });

  it('when 5m is asked with fields, then the bucket sums them, and a bucket with a candle without them is null', async () => {
    const rows = ((await srv.getJson(path({ timeframe: '5m', fields: 'trades,quote_volume,taker_buy_volume' }), key)).body as Json).data;
    expect(rows.map((x: Json) => [x.trades, x.quote_volume, x.taker_buy_volume])).toEqual([
      ['210', '1250.617260', '5.617284'],
      [null, null, null],
    ]);
  });

  it('when CSV, Arrow or Parquet is asked with fields, then the columns follow, trades an Int64 column', async () => {
    const csv = (await (await srv.rest(path({ fields: 'trades,taker_buy_volume', format: 'csv' }), { key })).text()).trim().split('\n');
    expect(csv[0]).toBe('time,open,high,low,close,volume,trades,taker_buy_volume');
    expect(csv[2]).toBe(`${iso(T + MIN)},100.000000,101.500000,99.250000,100.750000,2.500000,41,1.123457`);
    expect(csv[8].endsWith(',,')).toBe(true);
    const bytes = new Uint8Array(await (await srv.rest(path({ fields: 'trades,taker_buy_volume', format: 'arrow' }), { key })).arrayBuffer());
    const table = tableFromIPC(bytes, { useDecimalInt: true, useBigInt: true });
    const trades = table.schema.fields.find((f) => f.name === 'trades')!;
    expect([trades.type.typeId, (trades.type as { bitWidth: number }).bitWidth]).toEqual([Type.Int, 64]);
    const values = [...table.getChild('trades').toArray()];
    expect(values[1]).toBe(41n);
    expect(values[7]).toBeNull();
    // Parquet, read by DuckDB: trades a BIGINT, the volume an exact DECIMAL(38,6).
    const parquet = new Uint8Array(await (await srv.rest(path({ fields: 'trades,taker_buy_volume', format: 'parquet' }), { key })).arrayBuffer());
    const dir = mkdtempSync(nodePath.join(tmpdir(), 'mds-flow-'));
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const file = nodePath.join(dir, 'page.parquet');
      writeFileSync(file, parquet);
      const described = (await duck.runAndReadAll(`DESCRIBE SELECT trades, taker_buy_volume FROM read_parquet('${file}')`)).getRowObjectsJS();
      expect(described.map((c) => String(c.column_type))).toEqual(['BIGINT', 'DECIMAL(38,6)']);
      const rows = (await duck.runAndReadAll(`SELECT CAST(trades AS VARCHAR), CAST(taker_buy_volume AS VARCHAR) FROM read_parquet('${file}')`)).getRowsJS();
      expect(rows[1]).toEqual(['41', '1.123457']);
      expect(rows[7]).toEqual([null, null]);
    } finally {
      duck.closeSync();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when GraphQL candles select the trade flow in rows and columns (a fragment too), then they are the REST strings', async () => {
    const rest = ((await srv.getJson(path({ fields: 'trades,quote_volume,taker_buy_volume,taker_buy_quote_volume', limit: 8 }), key)).body as Json).data;
    const r = await srv.gql(
      `query($s: String!) { market(exchange: "spot", symbol: "BTC-USDT") {
        candles(timeframe: "1m", start: $s, limit: 8) { data { time ...flow } columns { trades takerBuyVolume } }
        plain: candles(timeframe: "1m", start: $s, limit: 2) { data { close } }
      } }
      fragment flow on Candle { trades quoteVolume takerBuyVolume takerBuyQuoteVolume }`,
      { s: String(T) },
      key,
    );
    const market = ((await r.json()) as Json).data.market;
    expect(market.candles.data).toEqual(
      rest.map((x: Json) => ({ time: x.time, trades: x.trades, quoteVolume: x.quote_volume, takerBuyVolume: x.taker_buy_volume, takerBuyQuoteVolume: x.taker_buy_quote_volume })),
    );
    expect(market.candles.columns).toEqual({ trades: rest.map((x: Json) => x.trades), takerBuyVolume: rest.map((x: Json) => x.taker_buy_volume) });
    expect(market.plain.data[0]).toEqual({ close: '100.750000' });
  });
});
