/**
 * Compiled execution (graphql-jit, the default) against graphql-js's own (GRAPHQL_COMPILED=false):
 * two servers over the same data answer a corpus of documents (fragments, aliases, directives,
 * variables, __typename, refusals inside the tree, null propagation, batches of markets) with
 * the same status and the same body, request ids aside.
 */
import { HOUR, MINUTE, T0, iso, loadFixtures } from '../helpers/fixtures';
import type { Json } from '../helpers/json';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases, type FreshDatabase } from '../helpers/databases';

const NOW = T0 + 900 * HOUR + 30_000;
const START = iso(T0);
const END = iso(T0 + 47 * HOUR);

interface Doc {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  key?: 'free' | 'scale';
}

const CORPUS: Doc[] = [
  { name: 'candle rows', query: `{ market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "${START}", end: "${END}") { count nextStart data { time open high low close volume } } } }` },
  { name: 'candle columns and rows, one page', query: `{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "4h", start: "${START}", limit: 5) { nextStart columns { time close } data { close } } } }` },
  {
    name: 'aliases, __typename, fragments, directives',
    query: `query Q($withVolume: Boolean!, $skipTime: Boolean!) {
      a: market(exchange: "spot", symbol: "ETH-USDT") { __typename symbol first: candles(timeframe: "1m", start: "${START}", limit: 3) { ...page } }
      b: market(exchange: "perp", symbol: "ETH-USDT") { exchange later: candles(timeframe: "1h", start: "${iso(T0 + 10 * HOUR)}", limit: 2) { ...page } }
    }
    fragment page on CandlePage { __typename count data { __typename t: time @skip(if: $skipTime) close ... on Candle { volume @include(if: $withVolume) } } }`,
    variables: { withVolume: true, skipTime: false },
  },
  { name: 'directives the other way', query: `query Q($v: Boolean!) { market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "${START}", limit: 2) { data { time @include(if: $v) close } } } }`, variables: { v: false } },
  { name: 'several operations, one named', query: `query A { me { tier } } query B { featureCatalogue { name category } }`, operationName: 'B' },
  { name: 'funding normalized', query: `{ market(exchange: "perp", symbol: "BTC-USDT") { funding(start: "${iso(T0 + 700 * HOUR)}", end: "${iso(T0 + 760 * HOUR)}", normalized: true) { count nextStart data { time rate rateNormalized premium } } } }` },
  { name: 'features wide', query: `{ market(exchange: "spot", symbol: "BTC-USDT") { features(timeframe: "1h", names: ["rsi_14", "macd", "bb_pct"], start: "${START}", end: "${END}") { features count data { time values { name value } } } } }` },
  { name: 'funding features', query: `{ market(exchange: "perp", symbol: "BTC-USDT") { features(timeframe: "funding", names: ["funding_norm", "premium_pct"], start: "${iso(T0 + 710 * HOUR)}", end: "${iso(T0 + 730 * HOUR)}") { count data { time values { name value } } } } }` },
  { name: 'every market with coverage and quality', query: `{ markets { exchange symbol coverage { timeframe first last } quality { timeframe dqs band components { gapRateScore anomalyScore consistencyScore freshnessScore } expectedCandles presentCandles missingIntervals { start end } } } }` },
  { name: 'markets of one venue, with candles each', query: `{ markets(exchange: "perp") { symbol candles(timeframe: "1d", start: "${START}", limit: 3) { count data { time close } } } }` },
  { name: 'multi-asset', query: `{ multiAsset(exchange: "spot", symbols: ["ETH-USDT", "SOL-USDT"], timeframe: "1m", field: "close", start: "${START}", end: "${iso(T0 + 6 * MINUTE)}") { symbols field count nextStart data { time values { symbol value } } } }` },
  { name: 'account', query: `{ me { tier limits { timeframes historyDays multiAssetSymbols } } apiKeys { tier status } }` },
  { name: 'a refused field beside served ones', query: `{ market(exchange: "spot", symbol: "BTC-USDT") { symbol candles(timeframe: "1m", start: "${START}", limit: 2) { count } quality { timeframe } } }`, key: 'free' },
  { name: 'bad arguments deep in the tree', query: `{ market(exchange: "spot", symbol: "BTC-USDT") { a: candles(timeframe: "7m", start: "${START}") { count } b: candles(timeframe: "1h", start: "yesterday") { count } c: candles(timeframe: "1h", start: "${START}", limit: 2) { count } } }` },
  { name: 'a refused market', query: `{ market(exchange: "nyse", symbol: "BTC-USDT") { symbol } }` },
  { name: 'null propagation into a non-null list', query: `{ markets { symbol quality(timeframe: "3h") { timeframe } } }` },
  { name: 'variables of the wrong type', query: `query Q($l: Int) { market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1h", start: "${START}", limit: $l) { count } } }`, variables: { l: 'x' } },
  { name: 'a missing required variable', query: `query Q($s: String!) { market(exchange: "spot", symbol: $s) { symbol } }`, variables: {} },
  { name: 'a variable list coerced from one value', query: `query Q($n: [String!]!) { market(exchange: "spot", symbol: "BTC-USDT") { features(timeframe: "1h", names: $n, start: "${START}", end: "${iso(T0 + 30 * HOUR)}") { features count } } }`, variables: { n: 'rsi_14' } },
  { name: 'an operation name that does not exist', query: `query Q { me { tier } }`, operationName: 'Nope' },
  { name: 'an empty operation name', query: `query Q { me { tier } }`, operationName: '' },
  { name: 'a mutation refused', query: `mutation { revokeApiKey(keyHash: "${'0'.repeat(64)}") { keyHash status } }` },
];

/** The body with request ids (one per request, never equal) taken out. */
function withoutRequestIds(body: Json): Json {
  return JSON.parse(JSON.stringify(body), (k, v: unknown) => (k === 'request_id' ? '<request_id>' : v)) as Json;
}

describe.each(databaseCases())('compiled GraphQL execution on $name', ({ create }) => {
  let compiled: TestServer;
  let interpreted: TestServer;
  let db: FreshDatabase | null;
  const keys = { compiled: {} as Record<string, string>, interpreted: {} as Record<string, string> };

  beforeAll(async () => {
    db = await create();
    compiled = await startTestServer({ clock: () => NOW, database: db?.url });
    interpreted = await startTestServer({ clock: () => NOW, database: db?.url, env: { GRAPHQL_COMPILED: 'false' } });
    await loadFixtures(compiled.services, NOW);
    // One PostgreSQL database serves both; each embedded database needs the data of its own.
    if (!db) await loadFixtures(interpreted.services, NOW);
    for (const [name, srv] of [['compiled', compiled], ['interpreted', interpreted]] as const) {
      keys[name] = { free: await srv.key('free', '00000000-0000-4000-8000-0000000000f1'), scale: await srv.key('scale', '00000000-0000-4000-8000-0000000000f2') };
    }
  }, 180_000);
  afterAll(async () => {
    await compiled?.stop();
    await interpreted?.stop();
    await db?.drop();
  });

  async function ask(srv: TestServer, key: string, doc: Doc): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${srv.url}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
      body: JSON.stringify({ query: doc.query, variables: doc.variables, operationName: doc.operationName }),
    });
    return { status: res.status, body: withoutRequestIds((await res.json()) as Json) };
  }

  it.each(CORPUS.map((d) => [d.name, d] as const))('when the document is "%s", then compiled and interpreted execution answer alike', async (_n, doc) => {
    const tier = doc.key ?? 'scale';
    const a = await ask(compiled, keys.compiled[tier], doc);
    const b = await ask(interpreted, keys.interpreted[tier], doc);
    expect(a).toEqual(b);
    // The corpus means something: every document is answered, most with data.
    expect(a.status === 200 || a.status === 400).toBe(true);
  });

  it('when the same document comes again, then it runs compiled from the cache with the same answer', async () => {
    const doc = CORPUS[0];
    const first = await ask(compiled, keys.compiled.scale, doc);
    const again = await ask(compiled, keys.compiled.scale, doc);
    expect(again).toEqual(first);
    expect((first.body.data as Json).market.candles.count).toBe(48);
  });
});
