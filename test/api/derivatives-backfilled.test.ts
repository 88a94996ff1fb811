/**
 * A backfilled context (binance-perp's: the venue keeps no minute history of open interest or
 * the predicted funding rate) served next to recorded minutes: those fields null in JSON, empty
 * in CSV, null in Arrow and in GraphQL rows and columns, and declared nullable by the OpenAPI
 * document and the schema only where a served exchange backfills. With EXCHANGES=perp,spot they
 * stay declared non-null (the recorded responses hold those bytes).
 */
import { tableFromIPC } from '@uwdata/flechette';
import { BACKFILL_GAPS } from '../../src/domain/market';
import { operations } from '../../src/rest/openapi';
import type { Json } from '../helpers/json';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 10, 12, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', '+00:00');
const q = (p: Record<string, string | number>) => new URLSearchParams(Object.entries(p).map(([k, v]): [string, string] => [k, String(v)])).toString();

const GAP_COLUMNS = ['open_interest', 'open_interest_open', 'open_interest_high', 'open_interest_low', 'open_interest_value', 'predicted_funding_rate'];
const FIELDS = 'time openInterest openInterestOpen openInterestHigh openInterestLow openInterestValue markPrice oraclePrice midPrice predictedFundingRate venuePremium';

/** The row type's properties in the document's /v1/derivatives 200 schema. */
const rowProperties = (doc: Json): Record<string, Json> =>
  doc.paths['/v1/derivatives'].get.responses['200'].content['application/json'].schema.properties.data.items.properties;

/** Introspection of the context types: each field's kind and, for a list, its items' kind. */
async function contextTypes(srv: TestServer, key: string): Promise<Record<string, Record<string, string>>> {
  const r = await srv.gql('{ row: __type(name: "DerivativesRow") { fields { name type { kind ofType { kind ofType { kind } } } } } columns: __type(name: "DerivativesColumns") { fields { name type { kind ofType { kind ofType { kind } } } } } }', {}, key);
  const data = ((await r.json()) as Json).data;
  const kinds = (fields: Json[]) => Object.fromEntries(fields.map((f) => [f.name, [f.type.kind, f.type.ofType?.kind, f.type.ofType?.ofType?.kind].filter(Boolean).join(' ')]));
  return { row: kinds(data.row.fields), columns: kinds(data.columns.fields) };
}

describe('a backfilled context where binance-perp is served', () => {
  const clock = manualClock(T + 30 * MIN);
  let srv: TestServer;
  let pro: string;

  beforeAll(async () => {
    srv = await startTestServer({ clock: clock.now, env: { EXCHANGES: 'perp,spot,binance-perp' } });
    pro = await srv.key('pro');
    const db = srv.services.store.db;
    const id = await srv.services.store.series.ensure({ exchange: 'binance-perp', symbol: 'BTC-USDT' });
    await db.query(`SELECT mds_ensure_partitions('1m', $1, $2, ARRAY['derivatives'])`, [new Date(T), new Date(T + 3 * MIN)]);
    // Minutes 0 and 1 backfilled (the venue's mark, index and premium klines), minute 2 recorded.
    await db.query(
      `INSERT INTO derivatives (series_id, timeframe, time, open_interest_open, open_interest_high, open_interest_low, open_interest, mark_price, oracle_price, mid_price, predicted_funding_rate, venue_premium)
       VALUES ($1, '1m', $2, NULL, NULL, NULL, NULL, 64000.125, 64001.5, NULL, NULL, -0.00012345678),
              ($1, '1m', $3, NULL, NULL, NULL, NULL, 64001.125, 64002.5, NULL, NULL, NULL),
              ($1, '1m', $4, 1009, 1013, 1007.75, 1010, 64002.125, 64003.5, 64002.1, 0.000011123, 0.0001)`,
      [id, new Date(T), new Date(T + MIN), new Date(T + 2 * MIN)],
    );
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const USDM = { exchange: 'binance-perp', symbol: 'BTC-USDT', timeframe: '1m', start: T, end: T + 2 * MIN };

  it('when a page holds backfilled minutes, then JSON writes their open interest and predicted rate as null, and the document\'s schema accepts the page', async () => {
    const r = await srv.getJson(`/v1/derivatives?${q(USDM)}`, pro);
    expect(r.status).toBe(200);
    expect(r.body.data[0]).toEqual({
      time: iso(T),
      open_interest: null,
      open_interest_open: null,
      open_interest_high: null,
      open_interest_low: null,
      open_interest_value: null,
      mark_price: '64000.125000',
      oracle_price: '64001.500000',
      mid_price: null,
      predicted_funding_rate: null,
      venue_premium: '-0.00012346',
    });
    expect(r.body.data[2]).toMatchObject({ open_interest: '1010.000000', open_interest_value: '64642146.250000', predicted_funding_rate: '0.00001112' });
    const op = operations(srv.services.endpoints, srv.services.exchanges).find((o) => o.path === '/v1/derivatives')!;
    const parsed = op.ok.schema!.safeParse(r.body);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it('when CSV or Arrow is asked, then those columns are empty cells and nulls', async () => {
    const csv = (await (await srv.rest(`/v1/derivatives?${q({ ...USDM, format: 'csv' })}`, { key: pro })).text()).trim().split('\n');
    expect(csv[0]).toBe('time,open_interest,open_interest_open,open_interest_high,open_interest_low,open_interest_value,mark_price,oracle_price,mid_price,predicted_funding_rate,venue_premium');
    expect(csv[1]).toBe(`${iso(T)},,,,,,64000.125000,64001.500000,,,-0.00012346`);
    expect(csv[3]).toBe(`${iso(T + 2 * MIN)},1010.000000,1009.000000,1013.000000,1007.750000,64642146.250000,64002.125000,64003.500000,64002.100000,0.00001112,0.00010000`);
    const arrow = tableFromIPC(new Uint8Array(await (await srv.rest(`/v1/derivatives?${q({ ...USDM, format: 'arrow' })}`, { key: pro })).arrayBuffer()), { useDecimalInt: true });
    for (const column of GAP_COLUMNS) expect({ column, values: [...arrow.getChild(column).toArray()].map((v) => v === null) }).toEqual({ column, values: [true, true, false] });
  });

  it('when GraphQL asks the rows and the columns, then the backfilled values are null, as REST serves them', async () => {
    const r = await srv.gql(
      `{ market(exchange: "binance-perp", symbol: "BTC-USDT") { derivatives(timeframe: "1m", start: "${iso(T)}", end: "${iso(T + 2 * MIN)}") { data { ${FIELDS} } columns { ${FIELDS} } } } }`,
      {},
      pro,
    );
    const body = (await r.json()) as Json;
    expect(body.errors).toBeUndefined();
    const page = body.data.market.derivatives;
    const rest = ((await srv.getJson(`/v1/derivatives?${q(USDM)}`, pro)).body as Json).data as Array<Record<string, string | null>>;
    const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    expect(page.data.map((row: Json) => Object.fromEntries(Object.entries(row).map(([k, v]) => [snake(k), v])))).toEqual(rest);
    expect(page.columns.openInterest).toEqual([null, null, '1010.000000']);
    expect(page.columns.predictedFundingRate).toEqual([null, null, '0.00001112']);
  });

  it('when the document and the schema are read, then exactly the backfill gaps are declared nullable', async () => {
    const props = rowProperties((await (await srv.rest('/v1/openapi.json')).json()) as Json);
    for (const column of GAP_COLUMNS) expect({ column, type: props[column].type }).toEqual({ column, type: ['string', 'null'] });
    expect(props.open_interest.description).toBe("Open interest at the end of the period, in base units, 6 decimals; null where the period was backfilled from the venue's history, which lacks it.");
    expect(props.mark_price.type).toBe('string');
    const { row, columns } = await contextTypes(srv, pro);
    for (const field of BACKFILL_GAPS) {
      expect({ field, row: row[field], columns: columns[field] }).toEqual({ field, row: 'SCALAR', columns: 'NON_NULL LIST SCALAR' });
    }
    expect({ row: row.markPrice, columns: columns.markPrice }).toEqual({ row: 'NON_NULL SCALAR', columns: 'NON_NULL LIST NON_NULL' });
  });
});

describe('the context where no served exchange backfills (EXCHANGES=perp,spot)', () => {
  let srv: TestServer;
  let pro: string;

  beforeAll(async () => {
    srv = await startTestServer({ env: { EXCHANGES: 'perp,spot' } });
    pro = await srv.key('pro');
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('when the document and the schema are read, then open interest and the predicted rate stay declared non-null', async () => {
    const props = rowProperties((await (await srv.rest('/v1/openapi.json')).json()) as Json);
    for (const column of GAP_COLUMNS) expect({ column, type: props[column].type }).toEqual({ column, type: 'string' });
    const { row, columns } = await contextTypes(srv, pro);
    for (const field of BACKFILL_GAPS) {
      expect({ field, row: row[field], columns: columns[field] }).toEqual({ field, row: 'NON_NULL SCALAR', columns: 'NON_NULL LIST NON_NULL' });
    }
  });
});
