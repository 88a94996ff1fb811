/**
 * `mds sync` and `mds ingest` as real processes (the compiled CLI) against the venue simulator
 * on fresh PostgreSQL databases: the JSON summary and the one-line refusal, `kill -9` in the
 * middle of a backfill and a resume that leaves no gap, no duplicate and the same derived rows
 * as an uninterrupted run, and two ingesters where the standby takes over within 15 s of the
 * leader's death and stops cleanly on SIGTERM.
 */
import pg from 'pg';
import { bucketStart, lastClosedOpen } from '../../src/domain/timeframe';
import { runMds, spawnMds } from '../helpers/processes';
import { describeWith } from '../helpers/requirements';
import { freshPostgres, type FreshDatabase } from '../helpers/databases';
import { pollUntil } from '../helpers/wait';
import { VenueSimulator } from '../../tools/venue-sim';

const MIN = 60_000;
const DAY = 86_400_000;

interface Summary {
  series: Array<{ exchange: string; symbol: string; venue: string; instrument: string; rows: number; venue_gap_slots: number; funding_rows: number; context_rows: number }>;
  requests: Record<string, number>;
  weight_used: Record<string, number>;
  duration_ms: number;
}

describeWith('DATABASE_URL', 'mds sync and mds ingest as processes on PostgreSQL', (serverUrl) => {
  let sim: VenueSimulator;
  const databases: FreshDatabase[] = [];
  const clients: pg.Client[] = [];

  const freshDb = async (): Promise<{ url: string; sql: pg.Client }> => {
    const d = await freshPostgres(serverUrl);
    databases.push(d);
    const sql = new pg.Client({ connectionString: d.url });
    await sql.connect();
    clients.push(sql);
    return { url: d.url, sql };
  };

  beforeAll(async () => {
    sim = await VenueSimulator.start();
  });
  afterEach(() => sim.setLatency('binance', 0));
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await Promise.all(databases.map((d) => d.drop()));
    await sim?.close();
  });

  /** 1m candles of spot BTC-USDT: count, distinct open times, first and last (0 when the series is not there yet). */
  const oneMinute = async (sql: pg.Client) => {
    const r = await sql
      .query<{ n: string; d: string; lo: string | null; hi: string | null }>(
        `SELECT count(*) AS n, count(DISTINCT c.time) AS d, (extract(epoch FROM min(c.time)) * 1000)::bigint AS lo, (extract(epoch FROM max(c.time)) * 1000)::bigint AS hi
           FROM candles c JOIN series s ON s.id = c.series_id WHERE s.exchange = 'spot' AND s.symbol = 'BTC-USDT' AND c.timeframe = '1m'`,
      )
      .catch(() => ({ rows: [{ n: '0', d: '0', lo: null, hi: null }] })); // before the migration ran
    const [x] = r.rows;
    return { count: Number(x.n), distinct: Number(x.d), first: x.lo === null ? null : Number(x.lo), last: x.hi === null ? null : Number(x.hi) };
  };

  /** Every candle and feature row opening before `cutoff`, as text, in order. */
  const derivedRows = async (sql: pg.Client, cutoff: number) => {
    const at = new Date(cutoff).toISOString();
    const candles = await sql.query(
      `SELECT timeframe, time, open::text, high::text, low::text, close::text, volume::text, derived FROM candles WHERE time < $1 ORDER BY timeframe, time`,
      [at],
    );
    const features = await sql.query(`SELECT f.* FROM features f WHERE time < $1 ORDER BY timeframe, time`, [at]);
    return { candles: candles.rows, features: features.rows.map(({ series_id: _, ...rest }: Record<string, unknown>) => rest) };
  };

  it('when mds sync runs, then it prints the JSON summary and stores every closed candle; a 418 ends it with exit 1 and one line', async () => {
    const { url, sql } = await freshDb();
    const since = lastClosedOpen(Date.now(), '1m') - 120 * MIN;
    const r = await runMds(['sync', '--exchange', 'spot', '--symbol', 'BTC-USDT', '--since', new Date(since).toISOString()], { ...sim.env, DATABASE_URL: url });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const summary = JSON.parse(r.stdout) as Summary;
    const stored = await oneMinute(sql);
    expect(summary.series).toEqual([{ exchange: 'spot', symbol: 'BTC-USDT', venue: 'binance', instrument: 'BTCUSDT', rows: stored.count, venue_gap_slots: 0, funding_rows: 0, context_rows: 0 }]);
    expect(stored.count).toBeGreaterThanOrEqual(120);
    expect(summary.requests).toEqual({ binance: expect.any(Number), hyperliquid: 0, 'binance-perp': 0, bybit: 0 });
    expect(summary.weight_used.binance).toBe(2 * summary.requests.binance);
    expect(summary.duration_ms).toBeGreaterThan(0);

    // A venue of its own: the ban lasts two minutes.
    const banning = await VenueSimulator.start();
    banning.failNext('binance', 1, 418, 120);
    const banned = await runMds(['sync', '--exchange', 'spot', '--symbol', 'ETH-USDT', '--since', '2h'], { ...banning.env, DATABASE_URL: url }).finally(() => banning.close());
    expect(banned.code).toBe(1);
    expect(banned.stdout).toBe('');
    expect(banned.stderr).toMatch(/^mds sync: binance refused: IP banned \(HTTP 418\) for 1[12]\d s\n$/);
  }, 60_000);

  it('when mds sync is killed with SIGKILL mid-backfill, then the next run resumes with no gap, no duplicate and the derived rows of an uninterrupted run', async () => {
    const killed = await freshDb();
    const since = bucketStart(Date.now() - 40 * DAY, '1d');
    const args = ['sync', '--exchange', 'spot', '--symbol', 'BTC-USDT', '--since', String(since)];
    const env = { ...sim.env, DATABASE_URL: killed.url };
    // Slow pages: 58 pages of 1,000, stored in batches of 50,000 rows.
    sim.setLatency('binance', 150);
    const p = spawnMds(args, env);
    await pollUntil(() => oneMinute(killed.sql), (s) => s.count > 0, { withinMs: 90_000, everyMs: 20 });
    p.kill('SIGKILL');
    expect((await p.exited()).code).toBeNull(); // killed by the signal
    const atKill = await oneMinute(killed.sql);
    const total = (lastClosedOpen(Date.now(), '1m') - since) / MIN + 1;
    expect(atKill.count).toBeLessThan(total);
    sim.setLatency('binance', 0);

    const resumed = await runMds(args, env);
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout) as Summary;
    const after = await oneMinute(killed.sql);
    // Resumed: only what was not stored was fetched and written.
    expect(summary.series[0].rows).toBe(after.count - atKill.count);
    // No gap, no duplicate: one row per minute from the first to the last closed one.
    expect(after).toEqual({ count: after.distinct, distinct: (after.last! - since) / MIN + 1, first: since, last: after.last });
    expect(after.last).toBeGreaterThanOrEqual(lastClosedOpen(Date.now(), '1m') - MIN);

    // Rollups and features as an uninterrupted sync leaves them (complete days compared).
    const clean = await freshDb();
    expect((await runMds(args, { ...sim.env, DATABASE_URL: clean.url })).code).toBe(0);
    const cutoff = bucketStart(after.last!, '1d');
    const [a, b] = await Promise.all([derivedRows(killed.sql, cutoff), derivedRows(clean.sql, cutoff)]);
    expect(a.candles.length).toBe(b.candles.length);
    expect(a.features.length).toBe(b.features.length);
    expect(a.candles).toEqual(b.candles);
    expect(a.features).toEqual(b.features);
  }, 240_000);

  it('when two mds ingest processes share a database and the leader is killed, then the standby leads within 15 s, follows, and exits 0 on SIGTERM', async () => {
    const { url, sql } = await freshDb();
    const env = { ...sim.env, DATABASE_URL: url, INGEST_SYMBOLS: 'BTC-USDT', INGEST_SINCE: '30m', LOG_LEVEL: 'info' };
    const first = spawnMds(['ingest'], env);
    const second = spawnMds(['ingest'], env);
    try {
      const leaderLine = /"msg":"ingest: leader/;
      const standbyLine = /"msg":"ingest: standby/;
      // Exactly one leads; the other stands by.
      await Promise.race([first.printed(leaderLine, 60_000), second.printed(leaderLine, 60_000)]);
      const [leader, standby] = leaderLine.test(first.output()) ? [first, second] : [second, first];
      await standby.printed(standbyLine, 30_000);
      expect(leaderLine.test(standby.output())).toBe(false);
      await pollUntil(() => oneMinute(sql), (s) => s.last !== null && s.last >= lastClosedOpen(Date.now(), '1m') - MIN, { withinMs: 30_000 });

      leader.kill('SIGKILL');
      const killedAt = Date.now();
      await leader.exited();
      await standby.printed(leaderLine, 15_000);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      // The new leader follows: the last closed minute is stored (a reconcile right after it connects).
      const last = lastClosedOpen(Date.now(), '1m');
      await pollUntil(() => oneMinute(sql), (s) => s.last !== null && s.last >= last, { withinMs: 20_000 });
      const stored = await oneMinute(sql);
      expect(stored.count).toBe(stored.distinct);
      expect(stored.count).toBe((stored.last! - stored.first!) / MIN + 1);

      standby.kill('SIGTERM');
      const end = await standby.exited();
      expect(end.code).toBe(0);
      expect(end.stdout).toMatch(/"msg":"ingest: stopping"/);
    } finally {
      first.kill('SIGKILL');
      second.kill('SIGKILL');
    }
  }, 180_000);
});
