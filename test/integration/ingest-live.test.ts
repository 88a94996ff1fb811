/**
 * The server following the venues (INGEST_SYMBOLS) against the venue simulator: backfill,
 * closed candles from the sockets stored and served over REST and GraphQL with their trade flow,
 * the perpetual's context per minute, Market.ingest, /health and /metrics, a dropped socket and
 * a silent one reconnected and reconciled, only closed candles and their final values stored,
 * freshness kept at 1. Simulator and server share a clock set so a minute closes soon.
 */
import { roundDecimal } from '../../src/domain/decimal';
import { lastClosedOpen } from '../../src/domain/timeframe';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases } from '../helpers/databases';
import { pollUntil, shiftableClock } from '../helpers/wait';
import { VenueSimulator } from '../../tools/venue-sim';

const MIN = 60_000;

describe.each(databaseCases())('live ingestion against the venue simulator on $name', ({ create }) => {
  let sim: VenueSimulator;
  let srv: TestServer;
  let key: string;
  let drop: (() => Promise<void>) | undefined;
  const shifted = shiftableClock();
  const clock = shifted.now;

  beforeAll(async () => {
    shifted.shift(MIN, 30_000); // no minute closes during the backfill on a quiet machine
    sim = await VenueSimulator.start({ now: clock, pushIntervalMs: 200 });
    const db = await create();
    drop = db?.drop;
    sim.setResendUnclosed(true);
    srv = await startTestServer({
      clock,
      database: db?.url,
      env: { ...sim.env, INGEST_SYMBOLS: 'BTC-USDT', INGEST_SINCE: '90m', INGEST_WS_TIMEOUT: '1500ms', INGEST_RECONCILE_CANDLES: '5' },
    });
    key = await srv.key('scale');
  });
  afterAll(async () => {
    await srv?.stop();
    await drop?.();
    await sim?.close();
  });

  const ohlcv = async (exchange: string, tf = '1m', minutes = 100) => {
    const end = clock();
    const r = await srv.getJson(`/v1/ohlcv?exchange=${exchange}&symbol=BTC-USDT&timeframe=${tf}&start=${end - minutes * MIN}&end=${end}&limit=1000`, key);
    return r.body as { data: Array<{ time: string; open: string; close: string; volume: string }> };
  };
  // Polled from storage (the API's quota would refuse a poll every 200 ms).
  const span = async (exchange: string) => {
    const id = await srv.services.store.series.idOf({ exchange, symbol: 'BTC-USDT' });
    const { first, last } = id === undefined ? { first: null, last: null } : await srv.services.store.candles.openSpan(id, '1m', new Date(lastClosedOpen(clock(), '1m')));
    return { first: first ?? Infinity, last: last ?? 0 };
  };
  const newest = async (exchange: string) => (await span(exchange)).last;

  it('when the server starts with INGEST_SYMBOLS, then it backfills both venues and serves the venue values', async () => {
    const last = lastClosedOpen(clock(), '1m');
    // Stored from the backfill's start to the last closed minute (a failed backfill step is retried as a backfill).
    const filled = (x: { first: number; last: number }) => x.first <= last - 89 * MIN && x.last >= last;
    await pollUntil(() => Promise.all([span('spot'), span('perp')]), ([a, b]) => filled(a) && filled(b), { withinMs: 30_000 });
    const spot = (await ohlcv('spot')).data;
    expect(spot.length).toBeGreaterThanOrEqual(89);
    for (const c of spot) expect(c.close).toBe(roundDecimal(sim.candle('binance', 'BTCUSDT', '1m', Date.parse(c.time))!.close, 6));
    const perp = (await ohlcv('perp')).data;
    for (const c of perp) expect(c.close).toBe(roundDecimal(sim.candle('hyperliquid', 'BTC', '1m', Date.parse(c.time))!.close, 6));
  });

  it('when a minute closes, then its candle arrives over the sockets and is served with its final values within seconds', async () => {
    shifted.advanceTo(MIN, 56_000); // the minute closes in about 4 s
    const before = lastClosedOpen(clock(), '1m');
    const next = before + MIN;
    await pollUntil(() => Promise.all([newest('spot'), newest('perp')]), ([a, b]) => a >= next && b >= next, { withinMs: 75_000, everyMs: 200 });
    expect(await newest('spot')).toBeGreaterThanOrEqual(next);
    expect(await newest('perp')).toBeGreaterThanOrEqual(next);
    const spot = (await ohlcv('spot', '1m', 3)).data.find((c) => Date.parse(c.time) === next)!;
    const v = sim.candle('binance', 'BTCUSDT', '1m', next)!;
    expect(spot).toMatchObject({ open: roundDecimal(v.open, 6), close: roundDecimal(v.close, 6), volume: roundDecimal(v.volume, 6) });
    // The same candle over GraphQL, and its features computed (the incremental tail).
    const g = await srv.gql(
      'query($s: String!) { market(exchange: "spot", symbol: "BTC-USDT") { candles(timeframe: "1m", start: $s, end: $s) { data { time close volume } } } }',
      { s: String(next) },
      key,
    );
    const gData = ((await g.json()) as { data: { market: { candles: { data: Array<{ time: string; close: string; volume: string }> } } } }).data;
    expect(gData.market.candles.data).toEqual([{ time: spot.time, close: spot.close, volume: spot.volume }]);
    const f = await srv.getJson(`/v1/features?exchange=spot&symbol=BTC-USDT&timeframe=1m&features=rsi_14,vwap_20&start=${next}&end=${next}`, key);
    expect((f.body as { data: Array<Record<string, unknown>> }).data).toEqual([{ time: spot.time, rsi_14: expect.stringMatching(/^\d+\.\d{6}$/), vwap_20: expect.stringMatching(/^\d+\.\d{6}$/) }]);
    // Nothing of the open minute is stored.
    expect(await newest('spot')).toBeLessThanOrEqual(lastClosedOpen(clock(), '1m'));
  }, 90_000);

  it("when minutes closed, then /v1/ohlcv serves the venues' trade flow and /v1/derivatives the perpetual's context of each followed minute", async () => {
    const last = lastClosedOpen(clock(), '1m');
    const perpId = (await srv.services.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!;
    const context = () => srv.services.store.derivatives.pages([perpId], '1m', new Date(last), new Date(last), 1).then((m) => m.get(perpId) ?? []);
    await pollUntil(() => Promise.all([newest('spot'), newest('perp'), context()]), ([a, b, c]) => a >= last && b >= last && c.length === 1, { withinMs: 15_000 });
    const flow = async (exchange: string) => {
      const r = await srv.getJson(`/v1/ohlcv?exchange=${exchange}&symbol=BTC-USDT&timeframe=1m&start=${last}&end=${last}&fields=trades,quote_volume,taker_buy_volume,taker_buy_quote_volume`, key);
      return (r.body as { data: Array<Record<string, string | null>> }).data[0];
    };
    const spot = sim.tradeFlow('binance', 'BTCUSDT', '1m', last)!;
    expect(await flow('spot')).toMatchObject({
      trades: spot.trades,
      quote_volume: roundDecimal(spot.quoteVolume, 6),
      taker_buy_volume: roundDecimal(spot.takerBuyVolume, 6),
      taker_buy_quote_volume: roundDecimal(spot.takerBuyQuoteVolume, 6),
    });
    // Hyperliquid sends trades only (its socket's last push of the minute: setResendUnclosed may have made it a stale one).
    expect(await flow('perp')).toMatchObject({ trades: expect.stringMatching(/^\d+$/), quote_volume: null, taker_buy_volume: null });

    const d = await srv.getJson(`/v1/derivatives?exchange=perp&symbol=BTC-USDT&timeframe=1m&start=${last}&end=${last}`, key);
    const [row] = (d.body as { data: Array<Record<string, string | null>> }).data;
    // The last update of the minute: the push half a second before its end (or one before, had that one come late).
    const candidates = [59_500, 58_500].map((at) => roundDecimal(sim.context('BTC', last + at).openInterest, 6));
    expect(candidates).toContain(row.open_interest);
    expect(Number(row.open_interest_low)).toBeLessThanOrEqual(Number(row.open_interest));
    expect(Number(row.open_interest_high)).toBeGreaterThanOrEqual(Number(row.open_interest));
    const g = await srv.gql('query($s: String!) { market(exchange: "perp", symbol: "BTC-USDT") { derivatives(timeframe: "1m", start: $s, end: $s) { data { openInterest markPrice } } } }', { s: String(last) }, key);
    const gRow = ((await g.json()) as { data: { market: { derivatives: { data: Array<Record<string, string>> } } } }).data.market.derivatives.data[0];
    expect(gRow).toEqual({ openInterest: row.open_interest, markPrice: row.mark_price });
    expect((await srv.getJson(`/v1/derivatives?exchange=spot&symbol=BTC-USDT&timeframe=1m&start=${last}`, key)).status).toBe(400);
  });

  it('when GraphQL asks for market.ingest, /health and /metrics are read, then they show the live state', async () => {
    type Ingest = { connected: boolean; lastClosed: string; lag: number };
    const ingest = async () => {
      const r = await srv.gql('{ market(exchange: "spot", symbol: "BTC-USDT") { ingest { connected lastClosed lag } } }', {}, key);
      return ((await r.json()) as { data: { market: { ingest: Ingest } } }).data.market.ingest;
    };
    // The shared clock jumped up to a minute ahead above, which ages the last status report past
    // INGEST_REPORT_STALE_MS: the leader's next one (every 5 s) makes it current again.
    const live = await pollUntil(ingest, (i) => i.connected, { withinMs: 10_000 });
    expect(live).toMatchObject({ connected: true, lastClosed: expect.stringMatching(/\+00:00$/) });
    expect(live.lag).toBeLessThan(70);
    const health = (await (await srv.rest('/health')).json()) as { status: string; checks: { ingest: { status: string; role: string; venues: Record<string, { connected: boolean; max_lag_seconds: number }> } } };
    expect(health.status).toBe('ok');
    expect(health.checks.ingest).toMatchObject({ status: 'ok', role: 'leader' });
    expect(health.checks.ingest.venues).toMatchObject({ binance: { connected: true, series: 1 }, hyperliquid: { connected: true, series: 1 } });
    expect(health.checks.ingest.venues.binance.max_lag_seconds).toBeLessThan(70);
    const metrics = await (await srv.rest('/metrics')).text();
    expect(metrics).toMatch(/mds_venue_requests_total\{venue="binance",status="200"\} \d+/);
    expect(metrics).toMatch(/mds_ingest_lag_seconds\{exchange="spot",symbol="BTC-USDT"\} [\d.]+/);
    expect(metrics).toMatch(/mds_venue_weight_used_total\{venue="hyperliquid"\} \d+/);
    // A market nothing ingests has no ingest status.
    const other = await srv.gql('{ market(exchange: "spot", symbol: "DOGE-USDT") { ingest { connected } } }', {}, key);
    expect(((await other.json()) as { data: { market: { ingest: null } } }).data.market.ingest).toBeNull();
  });

  it('when a socket drops or falls silent, then it reconnects with backoff and the missed candles are fetched', async () => {
    const accepted = sim.sockets('binance').accepted;
    sim.dropSockets('binance');
    await pollUntil(async () => sim.sockets('binance'), (x) => x.accepted > accepted && x.open > 0, { withinMs: 15_000 });
    const hl = sim.sockets('hyperliquid').accepted;
    sim.setSilent('hyperliquid', true);
    await pollUntil(async () => sim.sockets('hyperliquid').accepted, (n) => n > hl, { withinMs: 15_000 });
    sim.setSilent('hyperliquid', false);
    const metrics = await (await srv.rest('/metrics')).text();
    expect(metrics).toMatch(/mds_ingest_reconnects_total\{venue="binance"\} [1-9]/);
    expect(metrics).toMatch(/mds_ingest_reconnects_total\{venue="hyperliquid"\} [1-9]/);
    // Every closed minute since the backfill start is stored: no hole left behind.
    const last = lastClosedOpen(clock(), '1m');
    await pollUntil(() => newest('perp'), (t) => t >= last, { withinMs: 20_000 });
    const rows = (await ohlcv('perp', '1m', 60)).data.map((c) => Date.parse(c.time));
    for (let i = 1; i < rows.length; i++) expect(rows[i] - rows[i - 1]).toBe(MIN);
  }, 60_000);

  it('when the backfill is done, then the series are scored at once; when the quality job runs, then they are fresh', async () => {
    const first = await srv.getJson('/v1/quality?exchange=perp&symbol=BTC-USDT&timeframe=1m', key);
    expect(first.status).toBe(200);
    await srv.services.quality.computeAll(clock());
    const r = await srv.getJson('/v1/quality?exchange=spot&symbol=BTC-USDT&timeframe=1m', key);
    expect((r.body as { timeframes: Record<string, { components: { freshness_score: string } }> }).timeframes['1m'].components.freshness_score).toBe('1.0000');
  });
});
