/**
 * GET /v1/derivatives and GraphQL `market.derivatives` / `derivativesClosed` side by side, over
 * context minutes stored through the live write path: the same strings from both transports,
 * decimals at 6 places (8 for the rates), rollups, paging, CSV, Arrow, ETag, the plan's rules,
 * the spot exchange refused; multi-asset's open_interest and mark_price; /v1/markets coverage;
 * on each database (and on an engine: docs/SCALING.md).
 */
import { tableFromIPC } from '@uwdata/flechette';
import type { DerivativesInput } from '../../src/domain/derivatives';
import type { Json } from '../helpers/json';
import { databaseCases, type FreshDatabase } from '../helpers/databases';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';
import { connectWs, eventually } from '../helpers/ws-client';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 10, 12, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', '+00:00');

/** Minute i: open interest climbing then falling, prices moving, the book empty at minute 3. */
function minute(i: number): DerivativesInput {
  const oi = 1000 + ((i * 37) % 11) * 2.5;
  return {
    time: T + i * MIN,
    openInterestOpen: String(oi - 1),
    openInterestHigh: String(oi + 3),
    openInterestLow: String(oi - 2.25),
    openInterest: String(oi),
    markPrice: `${64000 + i}.125`,
    oraclePrice: `${64001 + i}.5`,
    midPrice: i === 3 ? null : `${64000 + i}.1`,
    predictedFundingRate: `0.0000${i + 10}123`,
    venuePremium: i === 3 ? null : `-0.000${i + 1}2345678`,
  };
}

describe.each(databaseCases())('the perpetual context over REST and GraphQL on $name', ({ create }) => {
  const clock = manualClock(T + 30 * MIN);
  let srv: TestServer;
  let db: FreshDatabase | null;
  let pro: string;
  let free: string;

  beforeAll(async () => {
    db = await create();
    srv = await startTestServer({ clock: clock.now, database: db?.url, env: { UPGRADE_URL: 'https://example.com/up' } });
    [pro, free] = await Promise.all([srv.key('pro'), srv.key('free')]);
    const s = srv.services.store;
    // Both perpetuals' minutes in one write, as the recorder writes the minutes that end together.
    const batch = [];
    for (const symbol of ['BTC-USDT', 'ETH-USDT']) batch.push({ series: { id: await s.series.ensure({ exchange: 'perp', symbol }), symbol }, rows: Array.from({ length: 10 }, (_, i) => minute(i)) });
    await srv.services.writer.derivatives(batch);
    await s.series.ensure({ exchange: 'spot', symbol: 'BTC-USDT' });
  });
  afterAll(async () => {
    await srv?.stop();
    await db?.drop();
  });

  const q = (p: Record<string, string | number>) => new URLSearchParams(Object.entries(p).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const BTC = { exchange: 'perp', symbol: 'BTC-USDT', timeframe: '1m', start: T, end: T + 9 * MIN };

  it('when a page of 1m is asked, then each minute is served exact with 6 places (8 for the rates), its value computed, and the next page named', async () => {
    const r = await srv.getJson(`/v1/derivatives?${q({ ...BTC, limit: 5 })}`, pro);
    expect(r.status).toBe(200);
    const body = r.body as Json;
    expect(Object.keys(body)).toEqual(['symbol', 'exchange', 'timeframe', 'count', 'next_start', 'data']);
    expect(body).toMatchObject({ symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1m', count: 5, next_start: iso(T + 5 * MIN) });
    expect(body.data[1]).toEqual({
      time: iso(T + MIN),
      open_interest: '1010.000000',
      open_interest_open: '1009.000000',
      open_interest_high: '1013.000000',
      open_interest_low: '1007.750000',
      // 1010 x 64001.125
      open_interest_value: '64641136.250000',
      mark_price: '64001.125000',
      oracle_price: '64002.500000',
      mid_price: '64001.100000',
      // 0.000011123 and -0.00022345678, rounded half away from zero
      predicted_funding_rate: '0.00001112',
      venue_premium: '-0.00022346',
    });
    expect(body.data[3]).toMatchObject({ mid_price: null, venue_premium: null });
  });

  it('when 5m is asked, then each bucket holds open interest as OHLC of its minutes and the last minute\'s prices', async () => {
    const rows = ((await srv.getJson(`/v1/derivatives?${q({ ...BTC, timeframe: '5m' })}`, pro)).body as Json).data;
    const m = [0, 1, 2, 3, 4].map(minute);
    expect(rows[0]).toMatchObject({
      time: iso(T),
      open_interest_open: `${Number(m[0].openInterestOpen).toFixed(6)}`,
      open_interest_high: `${Math.max(...m.map((x) => Number(x.openInterestHigh))).toFixed(6)}`,
      open_interest_low: `${Math.min(...m.map((x) => Number(x.openInterestLow))).toFixed(6)}`,
      open_interest: `${Number(m[4].openInterest).toFixed(6)}`,
      mark_price: '64004.125000',
    });
    expect(rows).toHaveLength(2);
  });

  it('when GraphQL asks market.derivatives in rows and columns, then it gets the REST strings', async () => {
    const rest = ((await srv.getJson(`/v1/derivatives?${q({ ...BTC, limit: 4 })}`, pro)).body as Json).data as Array<Record<string, string | null>>;
    const fields = 'time openInterest openInterestOpen openInterestHigh openInterestLow openInterestValue markPrice oraclePrice midPrice predictedFundingRate venuePremium';
    const r = await srv.gql(
      `query($s: String!, $e: String!) { market(exchange: "perp", symbol: "btc-usdt") { derivatives(timeframe: "1m", start: $s, end: $e, limit: 4) { count nextStart data { ${fields} } columns { time openInterest midPrice venuePremium } } } }`,
      { s: String(T), e: String(T + 9 * MIN) },
      pro,
    );
    const page = ((await r.json()) as Json).data.market.derivatives;
    expect(page.count).toBe(4);
    expect(page.nextStart).toBe(iso(T + 4 * MIN));
    const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    expect(page.data.map((row: Record<string, string>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [snake(k), v])))).toEqual(rest);
    expect(page.columns).toEqual({
      time: rest.map((x) => x.time),
      openInterest: rest.map((x) => x.open_interest),
      midPrice: rest.map((x) => x.mid_price),
      venuePremium: rest.map((x) => x.venue_premium),
    });
  });

  it('when CSV or Arrow is asked, then the same strings and exact decimals come, rates at 8 places; a repeat gets 304', async () => {
    const json = ((await srv.getJson(`/v1/derivatives?${q(BTC)}`, pro)).body as Json).data as Array<Record<string, string | null>>;
    const csv = await (await srv.rest(`/v1/derivatives?${q({ ...BTC, format: 'csv' })}`, { key: pro })).text();
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe(Object.keys(json[0]).join(','));
    expect(lines[4]).toBe(Object.values(json[3]).map((v) => v ?? '').join(','));
    const arrow = new Uint8Array(await (await srv.rest(`/v1/derivatives?${q({ ...BTC, format: 'arrow' })}`, { key: pro })).arrayBuffer());
    const table = tableFromIPC(arrow, { useDecimalInt: true });
    const scale = (name: string) => (table.schema.fields.find((f) => f.name === name)!.type as { scale: number }).scale;
    expect([scale('open_interest'), scale('mark_price'), scale('predicted_funding_rate'), scale('venue_premium')]).toEqual([6, 6, 8, 8]);
    const premium = [...table.getChild('venue_premium').toArray()] as Array<bigint | null>;
    expect(premium[1]).toBe(-22346n);
    expect([...table.getChild('open_interest').toArray()][1]).toBe(1010000000n);
    expect(premium[3]).toBeNull();
    const first = await srv.rest(`/v1/derivatives?${q(BTC)}`, { key: pro });
    const again = await srv.rest(`/v1/derivatives?${q(BTC)}`, { key: pro, headers: { 'If-None-Match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it.each([
    ['the spot exchange', 400, 'INVALID_EXCHANGE', { ...BTC, exchange: 'spot' }, 'pro'],
    ['an unknown timeframe', 400, 'INVALID_TIMEFRAME', { ...BTC, timeframe: '2m' }, 'pro'],
    ['a limit of 0', 400, 'INVALID_PARAMETER', { ...BTC, limit: 0 }, 'pro'],
    ['start after end', 400, 'INVALID_TIME_RANGE', { ...BTC, start: T + MIN, end: T }, 'pro'],
    ['1m on the free plan', 403, 'TIER_LIMIT_EXCEEDED', BTC, 'free'],
    ['a window over 365 days on the free plan', 403, 'TIER_LIMIT_EXCEEDED', { ...BTC, timeframe: '1h', start: T - 400 * 86_400_000 }, 'free'],
  ])('when %s is asked, then %s %s', async (_what, status, code, params, tier) => {
    const r = await srv.getJson(`/v1/derivatives?${q(params)}`, tier === 'free' ? free : pro);
    expect({ status: r.status, error: (r.body as Json).error }).toEqual({ status, error: code });
    if (code === 'INVALID_EXCHANGE') expect((r.body as Json).message).toBe('the spot venue has no perpetual context (open interest, mark and oracle prices); use exchange=perp');
  });

  it('when the free plan asks 1h, then it is served (closed hours only: none yet)', async () => {
    const r = await srv.getJson(`/v1/derivatives?${q({ ...BTC, timeframe: '1h' })}`, free);
    expect(r.status).toBe(200);
    expect((r.body as Json).data).toEqual([]);
  });

  it('when GraphQL asks derivatives of the spot exchange, then the field is null with INVALID_EXCHANGE', async () => {
    const r = await srv.gql('{ market(exchange: "spot", symbol: "BTC-USDT") { derivatives(timeframe: "1m", start: "2026-03-10") { count } } }', {}, pro);
    const body = (await r.json()) as Json;
    expect(body.data.market.derivatives).toBeNull();
    expect(body.errors[0].extensions.code).toBe('INVALID_EXCHANGE');
  });

  it('when multi-asset asks open_interest or mark_price, then each symbol has its value; on spot, INVALID_EXCHANGE', async () => {
    const base = { symbols: 'BTC-USDT,ETH-USDT', exchange: 'perp', timeframe: '1m', start: T, end: T + MIN };
    const oi = (await srv.getJson(`/v1/multi-asset?${q({ ...base, field: 'open_interest' })}`, pro)).body as Json;
    expect(oi.data).toEqual([
      { time: iso(T), 'BTC-USDT': '1000.000000', 'ETH-USDT': '1000.000000' },
      { time: iso(T + MIN), 'BTC-USDT': '1010.000000', 'ETH-USDT': '1010.000000' },
    ]);
    const mark = (await srv.getJson(`/v1/multi-asset?${q({ ...base, field: 'mark_price' })}`, pro)).body as Json;
    expect(mark.data[1]['BTC-USDT']).toBe('64001.125000');
    const spot = await srv.getJson(`/v1/multi-asset?${q({ ...base, exchange: 'spot', field: 'open_interest' })}`, pro);
    expect({ status: spot.status, error: (spot.body as Json).error }).toEqual({ status: 400, error: 'INVALID_EXCHANGE' });
  });

  it('when the markets are listed, then a perpetual with context rows has a derivatives entry, the spot market none', async () => {
    const markets = ((await srv.getJson('/v1/markets', pro)).body as Json).markets as Array<{ exchange: string; symbol: string; coverage: Json[] }>;
    const perp = markets.find((m) => m.exchange === 'perp' && m.symbol === 'BTC-USDT')!;
    expect(perp.coverage.at(-1)).toEqual({ timeframe: 'derivatives', first: iso(T), last: iso(T + 9 * MIN) });
    expect(markets.find((m) => m.exchange === 'spot')!.coverage).toEqual([]);
  });

  it('when derivativesClosed is subscribed and a minute is written, then the row arrives as a query returns it; spot is refused', async () => {
    const s = connectWs(srv.url, pro);
    try {
      const refused = await s.once('subscription { derivativesClosed(exchange: "spot", symbol: "BTC-USDT", timeframe: "1m") { time } }');
      expect(refused.errors[0][0].extensions.code).toBe('INVALID_EXCHANGE');
      const sub = s.subscribe('subscription { derivativesClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1m") { time openInterest midPrice venuePremium } }');
      const id = (await srv.services.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!;
      const next = minute(10);
      // Written until the subscription, opened asynchronously, hears it.
      for (let i = 0; i < 50 && sub.next.length === 0; i++) {
        await srv.services.writer.derivatives([{ series: { id, symbol: 'BTC-USDT' }, rows: [next] }]);
        await eventually(() => sub.next.length > 0, 100);
      }
      expect(sub.next[0]).toEqual({ data: { derivativesClosed: { time: iso(T + 10 * MIN), openInterest: '1017.500000', midPrice: '64010.100000', venuePremium: '-0.00011235' } } });
      sub.stop();
    } finally {
      await s.close();
    }
  });
});
