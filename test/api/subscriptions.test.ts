/**
 * GraphQL subscriptions over a real WebSocket (graphql-ws): authentication at connection_init
 * and on the upgrade request, one request per subscribe against the quotas, the plan's rules
 * and its cap on open subscriptions as `error` messages with the REST codes, revocation closing
 * the socket, and the events themselves: closed candles (rolled-up ones included), funding and
 * quality, as stored through the live write path, in the strings the queries return.
 */
import { randomUUID } from 'node:crypto';
import type { CandleInput } from '../../src/domain/csv-rows';
import type { Json } from '../helpers/json';
import { csvFile } from '../helpers/csv';
import { runMds, startGateway } from '../helpers/processes';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';
import { describeWith, serviceUrl } from '../helpers/requirements';
import { freshPostgres } from '../helpers/databases';
import { connectWs, eventually, type WsSession } from '../helpers/ws-client';

const redis = serviceUrl('REDIS_URL');
/** The event bus in process (the embedded default), and Redis pub/sub when REDIS_URL is set. */
const BUSES: Array<[string, Record<string, string>]> = [['in process', {}], ...(redis ? [['Redis', { REDIS_URL: redis }] as [string, Record<string, string>]] : [])];

const T = Date.UTC(2026, 2, 10, 12, 30, 18);
const PROBE_QUALITY = {
  timeframe: '1h' as const,
  dqs: '0.0000',
  band: 'probe',
  computedAt: 'probe',
  components: { gapRateScore: '0', anomalyScore: '0', consistencyScore: '0', freshnessScore: '0' },
  expectedCandles: 0,
  presentCandles: 0,
  missingIntervals: [],
};
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + '+00:00';

function minute(t: number, close: number): CandleInput {
  return { time: t, open: String(close - 1), high: String(close + 2), low: String(close - 2), close: String(close), volume: '1.5' };
}

describe.each(BUSES)('GraphQL subscriptions over WebSocket, events %s', (_bus, busEnv) => {
  const clock = manualClock(T);
  let srv: TestServer;
  let pro: string;
  let free: string;
  const sessions: WsSession[] = [];
  const open = (key: string | undefined, headers?: Record<string, string>) => {
    const s = connectWs(srv.url, key, headers);
    sessions.push(s);
    return s;
  };

  beforeAll(async () => {
    srv = await startTestServer({
      clock: clock.now,
      env: { ...busEnv, ADMIN_TOKEN: 'admin-secret-token', UPGRADE_URL: 'https://example.com/up', TIER_LIMITS: JSON.stringify({ free: { subscriptions: 2 }, pro: { subscriptions: 3 } }) },
    });
    [pro, free] = await Promise.all([srv.key('pro'), srv.key('free')]);
    for (const exchange of ['perp', 'spot']) await srv.services.store.series.ensure({ exchange, symbol: 'BTC-USDT' });
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await srv?.stop();
  });
  beforeEach(() => clock.set(T));

  const seriesId = async (exchange: string) => (await srv.services.store.series.idOf({ exchange, symbol: 'BTC-USDT' }))!;

  const PROBE_CANDLE = { time: 'probe', open: '0', high: '0', low: '0', close: '0', volume: '0' };
  /** An event of each subscription's topic, published until every one has heard it: they are open. Then their lists are emptied. */
  async function ready(subs: Array<{ next: Json[] }>, event: Parameters<TestServer['services']['events']['publisher']['publish']>[0]): Promise<void> {
    const ok = await pollUntilHeard(subs, () => srv.services.events.publisher.publish(event));
    expect(ok).toBe(true);
    for (const sub of subs) sub.next.length = 0;
  }
  async function pollUntilHeard(subs: Array<{ next: Json[] }>, publish: () => Promise<void>): Promise<boolean> {
    for (let i = 0; i < 100; i++) {
      await publish();
      if (await eventually(() => subs.every((x) => x.next.length > 0), 50)) return true;
    }
    return false;
  }

  describe('authentication', () => {
    it('when the key comes in connection_init, then operations run over the socket', async () => {
      const s = open(pro);
      const r = await s.once('{ me { tier limits { subscriptions } } }');
      expect(r.errors).toEqual([]);
      expect(r.next).toEqual([{ data: { me: { tier: 'pro', limits: { subscriptions: 3 } } } }]);
    });

    it('when the key comes only as the X-API-Key header of the upgrade request, then it is accepted too', async () => {
      const s = open(undefined, { 'X-API-Key': pro });
      expect((await s.once('{ me { tier } }')).next).toEqual([{ data: { me: { tier: 'pro' } } }]);
    });

    it.each([
      ['no key', undefined],
      ['an unknown key', 'qp_' + 'x'.repeat(43)],
      ['a malformed key', 'nope'],
    ])('when connection_init carries %s, then the socket closes with 4403 UNAUTHORIZED', async (_w, key) => {
      const s = open(key);
      s.subscribe('{ me { tier } }');
      expect(await s.closed).toEqual({ code: 4403, reason: 'UNAUTHORIZED' });
    });
  });

  describe('refusals are error messages with the REST codes, the socket staying open', () => {
    it('when a free key subscribes to 1m candles, then TIER_LIMIT_EXCEEDED with upgrade_url and request_id, and the next subscribe works', async () => {
      const s = open(free);
      const r = await s.once('subscription { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1m") { time } }');
      expect(r.next).toEqual([]);
      expect(r.errors).toEqual([
        [{ message: expect.stringContaining('timeframe 1m needs the pro plan'), extensions: { code: 'TIER_LIMIT_EXCEEDED', upgrade_url: 'https://example.com/up', request_id: expect.any(String) } }],
      ]);
      expect((await s.once('{ me { tier } }')).next).toEqual([{ data: { me: { tier: 'free' } } }]);
    });

    it('when the arguments are wrong, then the read\'s own code: INVALID_TIMEFRAME, INVALID_EXCHANGE for funding on spot, INVALID_PARAMETER for a symbol', async () => {
      const s = open(pro);
      const codes = [];
      for (const q of [
        'subscription { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "7m") { time } }',
        'subscription { fundingSettled(exchange: "spot", symbol: "BTC-USDT") { time } }',
        'subscription { qualityChanged(exchange: "perp", symbol: "BTC") { dqs } }',
        'subscription { candleClosed(exchange: "nyse", symbol: "BTC-USDT", timeframe: "1h") { time } }',
      ]) {
        codes.push(((await s.once(q)).errors[0] as Json[])[0].extensions.code);
      }
      expect(codes).toEqual(['INVALID_TIMEFRAME', 'INVALID_EXCHANGE', 'INVALID_PARAMETER', 'INVALID_EXCHANGE']);
    });

    it('when @skip or @include sits at the subscription\'s root (with a variable, which graphql-js 16\'s validation throws on), then GRAPHQL_VALIDATION_FAILED, and the socket stays open', async () => {
      const s = open(pro);
      const r = await s.once('subscription S($off: Boolean!) { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1h") @skip(if: $off) { time } }', { off: false });
      expect(r.errors).toEqual([
        [expect.objectContaining({ message: 'Subscription "S" must not use `@skip` or `@include` directives in the top level selection.', extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) })],
      ]);
      expect((await s.once('{ me { tier } }')).next).toEqual([{ data: { me: { tier: 'pro' } } }]);
    });

    it('when a free key has used its 10 requests of the minute, then the next subscribe is RATE_LIMIT_EXCEEDED with retry_after_secs; a new minute admits again', async () => {
      const key = await srv.key('free');
      const s = open(key);
      for (let i = 0; i < 10; i++) expect((await s.once('{ me { tier } }')).errors).toEqual([]);
      const refused = await s.once('subscription { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1h") { time } }');
      expect(refused.errors[0]).toEqual([
        { message: expect.stringContaining('minute'), extensions: { code: 'RATE_LIMIT_EXCEEDED', retry_after_secs: 42, request_id: expect.any(String) } },
      ]);
      clock.advance(60_000);
      expect((await s.once('{ me { tier } }')).errors).toEqual([]);
    });

    it('when a key holds its plan\'s subscriptions, then one more is TIER_LIMIT_EXCEEDED; completing one makes room', async () => {
      const key = await srv.key('pro');
      const s = open(key);
      const subs = [1, 2, 3].map(() => s.subscribe('subscription { qualityChanged(exchange: "perp", symbol: "BTC-USDT") { dqs } }'));
      await ready(subs, { type: 'quality', exchange: 'perp', symbol: 'BTC-USDT', records: [PROBE_QUALITY] });
      const over = await s.once('subscription { qualityChanged(exchange: "spot", symbol: "BTC-USDT") { dqs } }');
      expect((over.errors[0] as Json[])[0].extensions).toEqual({ code: 'TIER_LIMIT_EXCEEDED', upgrade_url: 'https://example.com/up', request_id: expect.any(String) });
      expect((over.errors[0] as Json[])[0].message).toContain('more than 3 subscriptions at once needs the scale plan');
      subs[0].stop();
      // The stop reaches the server asynchronously: a new one is admitted once it has.
      let admitted = false;
      for (let i = 0; i < 50 && !admitted; i++) {
        const again = s.subscribe('subscription { qualityChanged(exchange: "spot", symbol: "BTC-USDT") { dqs } }');
        admitted = await pollUntilHeard([again], () => srv.services.events.publisher.publish({ type: 'quality', exchange: 'spot', symbol: 'BTC-USDT', records: [PROBE_QUALITY] })).then(
          () => again.errors.length === 0 && again.next.length > 0,
        );
        if (!admitted) again.stop();
      }
      expect(admitted).toBe(true);
    });

    it('when a subscription is sent over plain HTTP, then 400 BAD_REQUEST', async () => {
      const res = await srv.gql('subscription { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1h") { time } }', undefined, pro);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).errors[0].extensions.code).toBe('BAD_REQUEST');
    });
  });

  it('when the key is revoked while its socket is open, then the socket closes with 4403 UNAUTHORIZED within a second', async () => {
    const userId = randomUUID();
    const key = await srv.key('pro', userId);
    const s = open(key);
    s.subscribe('subscription { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1h") { time } }');
    expect((await s.once('{ me { tier } }')).errors).toEqual([]);
    const [{ keyHash }] = await srv.services.store.keys.listOfUser(userId);
    const revokedAt = Date.now();
    const del = await srv.rest(`/v1/auth/keys/${keyHash}`, { key, method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await s.closed).toEqual({ code: 4403, reason: 'UNAUTHORIZED' });
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
  });

  describe('events', () => {
    it('when closed 1m candles are stored through the live write path, then candleClosed delivers each as the query renders it, and the 5m candle when its bucket completes', async () => {
      const now = Date.UTC(2026, 2, 10, 13, 0, 30);
      clock.set(now);
      const s = open(await srv.key('pro'));
      const oneMinute = s.subscribe('subscription { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1m") { time open high low close volume } }');
      const fiveMinutes = s.subscribe('subscription { candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "5m") { time close volume } }');
      const spot = s.subscribe('subscription { candleClosed(exchange: "spot", symbol: "BTC-USDT", timeframe: "1m") { time } }');
      await ready([oneMinute], { type: 'candle', exchange: 'perp', symbol: 'BTC-USDT', timeframe: '1m', candles: [PROBE_CANDLE] });
      await ready([fiveMinutes], { type: 'candle', exchange: 'perp', symbol: 'BTC-USDT', timeframe: '5m', candles: [PROBE_CANDLE] });
      await ready([spot], { type: 'candle', exchange: 'spot', symbol: 'BTC-USDT', timeframe: '1m', candles: [PROBE_CANDLE] });
      const start = Date.UTC(2026, 2, 10, 12, 55);
      const id = await seriesId('perp');
      await srv.services.writer.candles({ id, symbol: 'BTC-USDT' }, '1m', [0, 1, 2, 3].map((i) => minute(start + i * MIN, 100 + i)));
      await srv.services.writer.candles({ id, symbol: 'BTC-USDT' }, '1m', [minute(start + 4 * MIN, 104.125)]);
      expect(await eventually(() => oneMinute.next.length === 5 && fiveMinutes.next.length === 1)).toBe(true);
      expect(oneMinute.next.map((n) => n.data.candleClosed.time)).toEqual([0, 1, 2, 3, 4].map((i) => iso(start + i * MIN)));
      expect(oneMinute.next.at(-1)).toEqual({
        data: { candleClosed: { time: iso(start + 4 * MIN), open: '103.125000', high: '106.125000', low: '102.125000', close: '104.125000', volume: '1.500000' } },
      });
      const q = await srv.gql(`{ market(exchange: "perp", symbol: "BTC-USDT") { candles(timeframe: "5m", start: "${iso(start)}", limit: 1) { data { time close volume } } } }`, undefined, pro);
      const [fromQuery] = ((await q.json()) as Json).data.market.candles.data;
      expect(fiveMinutes.next).toEqual([{ data: { candleClosed: fromQuery } }]);
      expect(fromQuery).toEqual({ time: iso(start), close: '104.125000', volume: '7.500000' });
      expect(spot.next).toEqual([]);
    });

    it('when candles are imported (the path of mds import), then candleClosed delivers the newest imported candles and the coarser ones they completed, at most 1,000 per timeframe, after the features', async () => {
      const now = Date.UTC(2026, 2, 12, 0, 0, 30);
      clock.set(now);
      await srv.services.store.series.ensure({ exchange: 'spot', symbol: 'IMP-USDT' });
      const s = open(await srv.key('pro'));
      const q = (tf: string) => `subscription { candleClosed(exchange: "spot", symbol: "IMP-USDT", timeframe: "${tf}") { time close } }`;
      const [m1, h1, d1] = ['1m', '1h', '1d'].map((tf) => s.subscribe(q(tf)));
      for (const [sub, tf] of [[m1, '1m'], [h1, '1h'], [d1, '1d']] as const) {
        await ready([sub], { type: 'candle', exchange: 'spot', symbol: 'IMP-USDT', timeframe: tf, candles: [PROBE_CANDLE] });
      }
      // Two days of minutes: 2,880 1m candles, 48 hours, 2 days.
      const t0 = Date.UTC(2026, 2, 10);
      const rows = ['time,open,high,low,close,volume'];
      for (let i = 0; i < 2_880; i++) rows.push(`${new Date(t0 + i * MIN).toISOString()},${100 + (i % 7)},${110},${90},${100 + (i % 5)},2`);
      const r = await srv.services.importer.importCandles({ exchange: 'spot', symbol: 'IMP-USDT' }, '1m', csvFile(rows));
      await srv.services.recompute.afterCandlesChanged(r.seriesId, '1m', r.from!, r.to!, now);
      expect(await eventually(() => m1.next.length === 1_000 && h1.next.length === 48 && d1.next.length === 2)).toBe(true);
      expect(m1.next[0].data.candleClosed.time).toBe(iso(t0 + 1_880 * MIN));
      expect(m1.next.at(-1)!.data.candleClosed).toEqual({ time: iso(t0 + 2_879 * MIN), close: `${100 + (2_879 % 5)}.000000` });
      expect(d1.next.map((n) => n.data.candleClosed.time)).toEqual([iso(t0), iso(t0 + 86_400_000)]);
      // On receipt, the bar's features are there to be read.
      const f = await srv.gql(`{ market(exchange: "spot", symbol: "IMP-USDT") { features(timeframe: "1h", names: ["twap_20"], start: "${iso(t0 + 47 * 3_600_000)}") { count } } }`, undefined, pro);
      expect(((await f.json()) as Json).data.market.features.count).toBe(1);
    });

    it('when subscriptions are open and events flow, then /metrics counts the sockets, the subscriptions, the events published and the values delivered', async () => {
      const s = open(await srv.key('pro'));
      const sub = s.subscribe('subscription { candleClosed(exchange: "spot", symbol: "BTC-USDT", timeframe: "1h") { time } }');
      await ready([sub], { type: 'candle', exchange: 'spot', symbol: 'BTC-USDT', timeframe: '1h', candles: [PROBE_CANDLE] });
      const text = await (await fetch(`${srv.url}/metrics`)).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(value('mds_graphql_ws_sockets')).toBeGreaterThanOrEqual(1);
      expect(value('mds_graphql_subscriptions')).toBeGreaterThanOrEqual(1);
      expect(value('mds_events_delivered_total')).toBeGreaterThanOrEqual(1);
      expect(value('mds_events_published_total{type="candle"}')).toBeGreaterThanOrEqual(1);
    });

    it('when funding is stored, then fundingSettled delivers it plain and normalized as the funding query does', async () => {
      clock.set(Date.UTC(2026, 2, 10, 14, 0, 30));
      const s = open(await srv.key('pro'));
      const plain = s.subscribe('subscription { fundingSettled(exchange: "perp", symbol: "BTC-USDT") { time rate rateNormalized premium } }');
      const normalized = s.subscribe('subscription { fundingSettled(exchange: "perp", symbol: "BTC-USDT", normalized: true) { time rate rateNormalized premium } }');
      const probe = { time: 'probe', rate: '0', intervalHours: '1', rateHourly: '0', rateNormalized: null, premium: null };
      await ready([plain, normalized], { type: 'funding', exchange: 'perp', symbol: 'BTC-USDT', rates: [{ plain: probe, normalized: probe }] });
      const hour = Date.UTC(2026, 2, 10, 14);
      await srv.services.writer.funding({ id: await seriesId('perp'), symbol: 'BTC-USDT' }, [{ time: hour, rate: '0.0000125' }]);
      expect(await eventually(() => plain.next.length === 1 && normalized.next.length === 1)).toBe(true);
      expect(plain.next[0]).toEqual({ data: { fundingSettled: { time: iso(hour), rate: '0.00001250', rateNormalized: null, premium: null } } });
      const q = await srv.gql(`{ market(exchange: "perp", symbol: "BTC-USDT") { funding(start: "${iso(hour)}", normalized: true) { data { time rate rateNormalized premium } } } }`, undefined, pro);
      expect(normalized.next[0]).toEqual({ data: { fundingSettled: ((await q.json()) as Json).data.market.funding.data[0] } });
    });

    it('when a quality run changes a score, then qualityChanged delivers the records of the plan\'s timeframes; a run that changes nothing is silent', async () => {
      const now = Date.UTC(2026, 2, 10, 15, 0, 30);
      clock.set(now);
      const proSocket = open(await srv.key('pro'));
      const freeSocket = open(await srv.key('free'));
      const forPro = proSocket.subscribe('subscription { qualityChanged(exchange: "perp", symbol: "BTC-USDT") { timeframe dqs band presentCandles } }');
      const forFree = freeSocket.subscribe('subscription { qualityChanged(exchange: "perp", symbol: "BTC-USDT") { timeframe dqs } }');
      await ready([forPro, forFree], { type: 'quality', exchange: 'perp', symbol: 'BTC-USDT', records: [PROBE_QUALITY] });
      await srv.services.quality.computeSeries(await seriesId('perp'), now);
      expect(await eventually(() => forPro.next.length === 1 && forFree.next.length === 1)).toBe(true);
      const proTimeframes = (forPro.next[0].data.qualityChanged as Json[]).map((r) => r.timeframe);
      expect(proTimeframes).toEqual(['1m', '5m', '15m', '1h']);
      expect((forFree.next[0].data.qualityChanged as Json[]).map((r) => r.timeframe)).toEqual(['1h']);
      forPro.next.length = 0;
      await srv.services.quality.computeSeries(await seriesId('perp'), now);
      // A probe sent the way the run's event would go (after the same series read): what is heard
      // before it is what the second run published, nothing.
      const id = await seriesId('perp');
      expect(await pollUntilHeard([forPro], () => srv.services.events.publisher.qualityChanged(id, [PROBE_QUALITY]))).toBe(true);
      expect((forPro.next as Json[]).map((n) => n.data.qualityChanged[0].band)).toEqual(expect.arrayContaining(['probe']));
      expect((forPro.next as Json[]).every((n) => n.data.qualityChanged[0].band === 'probe')).toBe(true);
    });
  });
});

describeWith(['DATABASE_URL', 'REDIS_URL'], 'GraphQL subscriptions across two processes on one Redis', (pgUrl, redisUrl) => {
  let db: { url: string; drop(): Promise<void> };
  let here: TestServer;
  let there: Awaited<ReturnType<typeof startGateway>>;
  const sessions: WsSession[] = [];

  beforeAll(async () => {
    db = await freshPostgres(pgUrl);
    // This process on the channel a server process uses by default, so both hear each other.
    here = await startTestServer({ database: db.url, env: { REDIS_URL: redisUrl }, eventPrefix: 'mds:' });
    there = await startGateway({ DATABASE_URL: db.url, REDIS_URL: redisUrl, DEMO_FEED: 'false' });
    for (const exchange of ['perp', 'spot']) await here.services.store.series.ensure({ exchange, symbol: 'XPROC-USDT' });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await there?.stop();
    await here?.stop();
    await db?.drop();
  }, 90_000);

  it('when a candle is stored by one process, then a client subscribed on the other hears it, and the other way round', async () => {
    const key = await here.key('pro');
    const id = (await here.services.store.series.idOf({ exchange: 'perp', symbol: 'XPROC-USDT' }))!;
    const onThere = connectWs(there.url, key);
    const onHere = connectWs(here.url, key);
    sessions.push(onThere, onHere);
    const q = 'subscription { candleClosed(exchange: "perp", symbol: "XPROC-USDT", timeframe: "1m") { time close } }';
    const a = onThere.subscribe(q);
    const b = onHere.subscribe(q);
    const t0 = Math.floor(Date.now() / MIN) * MIN - 10 * MIN;
    // Each write is a new closed candle, until both have heard one (the subscriptions open asynchronously).
    const heardByBoth = () => a.next.find((x) => b.next.some((y) => y.data.candleClosed.time === x.data.candleClosed.time));
    for (let i = 0; i < 50 && !heardByBoth(); i++) {
      await here.services.writer.candles({ id, symbol: 'XPROC-USDT' }, '1m', [minute(t0 - i * MIN, 200 + i)]);
      await eventually(() => heardByBoth() !== undefined, 100);
    }
    const event = heardByBoth();
    expect(event?.data.candleClosed).toEqual({ time: expect.any(String), close: expect.stringMatching(/^2\d\d\.000000$/) });
    expect(b.next).toContainEqual(event);
  });

  it('when mds import runs as its own process, then a client subscribed on a server process hears the imported candles', async () => {
    const key = await here.key('pro');
    const onThere = connectWs(there.url, key);
    sessions.push(onThere);
    const sub = onThere.subscribe('subscription { candleClosed(exchange: "spot", symbol: "XPROC-USDT", timeframe: "1h") { time close } }');
    // Heard once open: a probe through the bus from this process.
    for (let i = 0; i < 100 && sub.next.length === 0; i++) {
      await here.services.events.publisher.publish({ type: 'candle', exchange: 'spot', symbol: 'XPROC-USDT', timeframe: '1h', candles: [{ time: 'probe', open: '0', high: '0', low: '0', close: '0', volume: '0' }] });
      await eventually(() => sub.next.length > 0, 50);
    }
    sub.next.length = 0;
    const t0 = Date.UTC(2026, 0, 5);
    const file = csvFile(['time,open,high,low,close,volume', ...[0, 1, 2].map((h) => `${new Date(t0 + h * 3_600_000).toISOString()},1,5,0.5,${1.25 + h},10`)]);
    const run = await runMds(['import', 'candles', '--exchange', 'spot', '--symbol', 'XPROC-USDT', '--timeframe', '1h', '--file', file], { DATABASE_URL: db.url, REDIS_URL: redisUrl });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(await eventually(() => sub.next.length === 3)).toBe(true);
    expect(sub.next.map((n) => n.data.candleClosed)).toEqual([0, 1, 2].map((h) => ({ time: iso(t0 + h * 3_600_000), close: `${(1.25 + h).toFixed(2)}0000` })));
  });
});
