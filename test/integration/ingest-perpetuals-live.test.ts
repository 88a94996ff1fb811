/**
 * The server following Binance USD-M (`binance-perp`) and Bybit (`bybit-perp`) at once against
 * the venue simulator: backfill, a closed minute's candle over each kline stream, the minute's
 * context (USD-M: markPrice@1s with open interest and the book asked after the minute; Bybit:
 * merged tickers deltas; both: the closed premium kline asked after the minute, folded into it),
 * and a silent socket, then a drop in the middle of a minute, reconnected and reconciled.
 * Simulator and server share a clock set so a minute closes soon.
 */
import { roundDecimal } from '../../src/domain/decimal';
import { lastClosedOpen } from '../../src/domain/timeframe';
import { modelContext } from '../../tools/venue-sim/context-model';
import { startTestServer, type TestServer } from '../helpers/server';
import { databaseCases } from '../helpers/databases';
import { PERP_VENUES } from '../helpers/perp-venues';
import { pollUntil, shiftableClock } from '../helpers/wait';
import { VenueSimulator } from '../../tools/venue-sim';

const MIN = 60_000;

describe.each(databaseCases())('following the interval perpetuals against the venue simulator on $name', ({ create }) => {
  let sim: VenueSimulator;
  let srv: TestServer;
  let drop: (() => Promise<void>) | undefined;
  const shifted = shiftableClock();
  const clock = shifted.now;

  beforeAll(async () => {
    shifted.shift(MIN, 30_000);
    sim = await VenueSimulator.start({ now: clock, pushIntervalMs: 200 });
    const db = await create();
    drop = db?.drop;
    srv = await startTestServer({
      clock,
      database: db?.url,
      env: {
        ...sim.env,
        EXCHANGES: 'perp,spot,binance-perp,bybit-perp',
        INGEST_EXCHANGES: 'binance-perp,bybit-perp',
        INGEST_SYMBOLS: 'BTC-USDT',
        INGEST_SINCE: '90m',
        INGEST_WS_TIMEOUT: '1500ms',
        INGEST_RECONCILE_CANDLES: '5',
      },
    });
  });
  afterAll(async () => {
    await srv?.stop();
    await drop?.();
    await sim?.close();
  });

  const seriesId = async (exchange: string) => (await srv.services.store.series.idOf({ exchange, symbol: 'BTC-USDT' }))!;
  /** The newest stored minute of the exchange that has the oldest: every one has reached it. */
  const newest = async () => {
    let oldest = Infinity;
    for (const { exchange } of PERP_VENUES) {
      const id = await srv.services.store.series.idOf({ exchange, symbol: 'BTC-USDT' });
      oldest = Math.min(oldest, id === undefined ? 0 : ((await srv.services.store.candles.openSpan(id, '1m', new Date(lastClosedOpen(clock(), '1m')))).last ?? 0));
    }
    return oldest;
  };
  const contextRow = async (exchange: string, minute: number) => {
    const rows = await srv.services.store.db.query<Record<string, string | null>>(
      `SELECT open_interest::text AS oi, mark_price::text AS mark, oracle_price::text AS oracle, mid_price::text AS mid, venue_premium::text AS premium
       FROM derivatives WHERE series_id = $1 AND timeframe = '1m' AND time = $2`,
      [await seriesId(exchange), new Date(minute)],
    );
    return rows[0];
  };

  it('when the server starts, then it backfills each exchange with its venue values', async () => {
    const last = lastClosedOpen(clock(), '1m');
    await pollUntil(newest, (t) => t >= last, { withinMs: 30_000 });
    for (const p of PERP_VENUES) {
      const [row] = await srv.services.store.db.query<{ close: string }>(`SELECT close::text AS close FROM candles WHERE series_id = $1 AND timeframe = '1m' AND time = $2`, [await seriesId(p.exchange), new Date(last - 10 * MIN)]);
      expect(roundDecimal(row.close, 6)).toBe(roundDecimal(sim.candle(p.venue, 'BTCUSDT', p.minute, last - 10 * MIN)!.close, 6));
    }
  });

  it('when a minute closes, then its candle arrives over the stream and its context row holds the closed premium kline of that minute', async () => {
    shifted.advanceTo(MIN, 56_000);
    const next = lastClosedOpen(clock(), '1m') + MIN;
    await pollUntil(newest, (t) => t >= next, { withinMs: 75_000, everyMs: 200 });
    // The minute's context is written 5 s after its end (its premium kline closes at the end).
    for (const p of PERP_VENUES) {
      const row = await pollUntil(() => contextRow(p.exchange, next), (r) => r !== undefined, { withinMs: 30_000, everyMs: 200 });
      expect(Number(row.oi)).toBeGreaterThan(0);
      expect(Number(row.mark)).toBeGreaterThan(0);
      expect(Number(row.oracle)).toBeGreaterThan(0);
      expect(Number(row.mid)).toBeGreaterThan(0);
      expect([p.exchange, Number(row.premium)]).toEqual([p.exchange, expect.closeTo(Number(modelContext('BTC', next + 55_000).premium.toFixed(8)), 6)]);
    }
  });

  it('when the sockets go silent, then they are reconnected; when they drop mid-minute, then they reconnect and the minute is still stored', async () => {
    const accepted = PERP_VENUES.map((p) => sim.sockets(p.venue).accepted);
    for (const p of PERP_VENUES) sim.setSilent(p.venue, true);
    for (const [i, p] of PERP_VENUES.entries()) await pollUntil(() => Promise.resolve(sim.sockets(p.venue).accepted), (n) => n > accepted[i], { withinMs: 20_000, everyMs: 100 });
    for (const p of PERP_VENUES) sim.setSilent(p.venue, false);
    const minute = lastClosedOpen(clock(), '1m') + MIN; // the minute open now
    for (const p of PERP_VENUES) sim.dropSockets(p.venue);
    shifted.advanceTo(MIN, 57_000); // that minute closes in about 3 s
    await pollUntil(newest, (t) => t >= minute, { withinMs: 90_000, everyMs: 200 });
    for (const [i, p] of PERP_VENUES.entries()) expect(sim.sockets(p.venue).accepted).toBeGreaterThanOrEqual(accepted[i] + 2);
  });
});
