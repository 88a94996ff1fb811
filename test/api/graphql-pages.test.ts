/**
 * Candle pages written as bytes (src/graphql/raw-json.ts): for plain selections (fields, aliases,
 * the same key twice) `data` and `columns` are written by the JSON row writer REST uses, and the
 * body is byte for byte what the same document answers through objects (a fragment makes it take
 * that path): rows, columns, the trade flow, several markets, a refused field beside written ones.
 * Compiled and interpreted execution alike, on PGlite and PostgreSQL.
 */
import * as jsonRows from '../../src/encoding/json-rows';
import { HOUR, T0, iso, loadFixtures } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';

const NOW = T0 + 900 * HOUR + 30_000;
const START = iso(T0);

/** A plain selection, and the same through a fragment (the object path). */
const DOCS: Array<{ name: string; plain: string; objects: string }> = [
  {
    name: 'rows of a full page',
    plain: `{ market(exchange: "spot", symbol: "ETH-USDT") { candles(timeframe: "1m", start: "${START}", limit: 10000) { count nextStart data { time open high low close volume } } } }`,
    objects: `{ market(exchange: "spot", symbol: "ETH-USDT") { candles(timeframe: "1m", start: "${START}", limit: 10000) { count nextStart data { ...C } } } } fragment C on Candle { time open high low close volume }`,
  },
  {
    name: 'columns, aliases and a key asked twice',
    plain: `{ market(exchange: "perp", symbol: "ETH-USDT") { candles(timeframe: "1h", start: "${START}", limit: 50) { c: columns { t: time close close v: volume } data { close t: time close } } } }`,
    objects: `{ market(exchange: "perp", symbol: "ETH-USDT") { candles(timeframe: "1h", start: "${START}", limit: 50) { c: columns { ...K } data { ...R } } } } fragment K on CandleColumns { t: time close v: volume } fragment R on Candle { close t: time }`,
  },
  {
    name: 'the trade flow, null where none was given',
    plain: `{ market(exchange: "spot", symbol: "ETH-USDT") { candles(timeframe: "1h", start: "${START}", limit: 30) { data { time trades quoteVolume takerBuyVolume takerBuyQuoteVolume } columns { trades takerBuyVolume } } } }`,
    objects: `{ market(exchange: "spot", symbol: "ETH-USDT") { candles(timeframe: "1h", start: "${START}", limit: 30) { data { ... on Candle { time trades quoteVolume takerBuyVolume takerBuyQuoteVolume } } columns { ... on CandleColumns { trades takerBuyVolume } } } } }`,
  },
  {
    name: 'several markets, and a refused field beside written ones',
    plain: `{ markets(exchange: "spot") { symbol a: candles(timeframe: "4h", start: "${START}", limit: 3) { data { time close } } b: candles(timeframe: "1m", start: "${START}", limit: 2) { data { close } } } }`,
    objects: `{ markets(exchange: "spot") { symbol a: candles(timeframe: "4h", start: "${START}", limit: 3) { data { ...C } } b: candles(timeframe: "1m", start: "${START}", limit: 2) { data { ...D } } } } fragment C on Candle { time close } fragment D on Candle { close }`,
  },
];

describe.each(databaseCases())('GraphQL candle pages as bytes on $name', ({ create }) => {
  let compiled: TestServer;
  let interpreted: TestServer;
  let db: FreshDatabase | null;
  const keys: Record<string, Record<'free' | 'scale', string>> = {};

  beforeAll(async () => {
    db = await create();
    compiled = await startTestServer({ clock: () => NOW, database: db?.url });
    interpreted = await startTestServer({ clock: () => NOW, database: db?.url, env: { GRAPHQL_COMPILED: 'false' } });
    await loadFixtures(compiled.services, NOW);
    if (!db) await loadFixtures(interpreted.services, NOW);
    for (const [name, srv] of [['compiled', compiled], ['interpreted', interpreted]] as const) keys[name] = { free: await srv.key('free'), scale: await srv.key('scale') };
  }, 180_000);
  afterAll(async () => {
    jest.restoreAllMocks();
    await compiled?.stop();
    await interpreted?.stop();
    await db?.drop();
  });

  /** The body's text, with its request ids (one per request) and error locations (the two documents' texts differ) taken out. */
  async function body(srv: TestServer, key: string, query: string): Promise<{ status: number; text: string }> {
    const res = await srv.gql(query, undefined, key);
    const text = await res.text();
    return { status: res.status, text: text.replace(/"request_id":"[^"]+"/g, '"request_id":"-"').replace(/"locations":\[[^\]]*\],/g, '') };
  }

  describe.each(['compiled', 'interpreted'] as const)('%s', (which) => {
    const server = () => (which === 'compiled' ? compiled : interpreted);

    it.each(DOCS.map((d) => [d.name, d] as const))('when the selection is "%s", then the bytes written equal the objects serialized', async (_n, doc) => {
      for (const tier of ['scale', 'free'] as const) {
        const rows = jest.spyOn(jsonRows, 'textRowsJson');
        const columns = jest.spyOn(jsonRows, 'textColumnsJson');
        const plain = await body(server(), keys[which][tier], doc.plain);
        const written = rows.mock.calls.length + columns.mock.calls.length;
        rows.mockClear();
        columns.mockClear();
        const objects = await body(server(), keys[which][tier], doc.objects);
        const unwritten = rows.mock.calls.length + columns.mock.calls.length;
        rows.mockRestore();
        columns.mockRestore();
        expect([tier, plain.status, plain.text]).toEqual([tier, objects.status, objects.text]);
        expect(plain.status).toBe(200);
        // The plain document took the byte path for each page it was allowed; the fragments none.
        expect(unwritten).toBe(0);
        if (tier === 'scale') expect(written).toBeGreaterThan(0);
      }
    });
  });

  it('when a full page is written, then it holds the rows REST serves', async () => {
    const rest = (await (await compiled.rest(`/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${START}&limit=10000`, { key: keys.compiled.scale })).json()) as { data: unknown[] };
    const gql = JSON.parse((await body(compiled, keys.compiled.scale, DOCS[0].plain)).text) as { data: { market: { candles: { data: unknown[] } } } };
    expect(gql.data.market.candles.data).toEqual(rest.data);
    expect(rest.data.length).toBeGreaterThan(100);
  });
});
