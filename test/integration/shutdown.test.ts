/**
 * SIGTERM on a real gateway process: it exits within SHUTDOWN_TIMEOUT (10 s) whatever its
 * dependencies' state (PostgreSQL partitioned away, Redis gone), a 10,000-row response in flight
 * completes, an open subscription closes with 1001, new connections are refused at once, and a
 * second signal exits at once. Readiness itself: test/api/operability.test.ts.
 */
import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { csvFile } from '../helpers/csv';
import { freshPostgres, type FreshDatabase } from '../helpers/databases';
import { privateRedis, runMds, startGateway, type GatewayProcess } from '../helpers/processes';
import { describeWith } from '../helpers/requirements';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { pause, pollUntil } from '../helpers/wait';
import { connectWs } from '../helpers/ws-client';

const ADMIN = 'shutdown-admin-token';
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);
const ROWS = 10_000;

/** Milliseconds from SIGTERM to exit, and the exit code. */
async function terminate(g: GatewayProcess): Promise<{ ms: number; code: number | null }> {
  const at = Date.now();
  g.kill('SIGTERM');
  const code = await g.exited();
  return { ms: Date.now() - at, code };
}

async function newKey(url: string): Promise<string> {
  const res = await fetch(`${url}/v1/auth/keys`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Admin-Token': ADMIN }, body: JSON.stringify({ user_id: randomUUID(), tier: 'pro' }) });
  return ((await res.json()) as { key: string }).key;
}

/** Whether a new TCP connection to the gateway is accepted. */
const accepts = (url: string) =>
  new Promise<boolean>((resolve) => {
    const u = new URL(url);
    const s = net.connect(Number(u.port), u.hostname, () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

describeWith('DATABASE_URL', 'SIGTERM on a gateway process', (serverUrl) => {
  const databases: FreshDatabase[] = [];
  const proxies: TcpProxy[] = [];
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all(databases.map((d) => d.drop()));
  });
  /** A gateway whose PostgreSQL goes silent (a partition) with one request stuck on it. */
  const partitioned = async () => {
    const url = await freshDb();
    const u = new URL(url);
    const proxy = await startTcpProxy(u.hostname, Number(u.port));
    proxies.push(proxy);
    const g = await startGateway({ DATABASE_URL: proxy.urlFor(url), ADMIN_TOKEN: ADMIN, DATABASE_CONNECT_TIMEOUT: '1s' });
    const key = await newKey(g.url);
    proxy.blackhole();
    const stuck = fetch(`${g.url}/v1/ohlcv?symbol=BTC-USDT&exchange=spot&timeframe=1m&start=${T0}`, { headers: { 'X-API-Key': key } }).then((r) => r.status, () => 0);
    await pause(300);
    return { g, stuck };
  };
  const freshDb = async () => {
    const d = await freshPostgres(serverUrl);
    databases.push(d);
    return d.url;
  };

  it('when SIGTERM comes during a 10,000-row response and with a subscription open, then new connections are refused, the response completes, the socket closes with 1001, and the process exits 0 within 10 s', async () => {
    const url = await freshDb();
    const lines = ['time,open,high,low,close,volume', ...Array.from({ length: ROWS }, (_, i) => `${T0 + i * MINUTE},100,101,99,100.5,${i + 1}`)];
    expect((await runMds(['import', 'candles', '--exchange', 'spot', '--symbol', 'BTC-USDT', '--timeframe', '1m', '--file', csvFile(lines)], { DATABASE_URL: url })).code).toBe(0);
    const g = await startGateway({ DATABASE_URL: url, ADMIN_TOKEN: ADMIN });
    try {
      const key = await newKey(g.url);
      const ws = connectWs(g.url, key);
      const sub = ws.subscribe('subscription { candleClosed(exchange: "spot", symbol: "BTC-USDT", timeframe: "1m") { time } }');
      // The response starts, then the client stops reading: the rest waits in the server.
      const chunks: Buffer[] = [];
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${g.url}/v1/ohlcv?symbol=BTC-USDT&exchange=spot&timeframe=1m&start=${T0}&limit=${ROWS}`, { headers: { 'X-API-Key': key } }, resolve).on('error', reject),
      );
      res.once('data', (c: Buffer) => {
        chunks.push(c);
        res.pause();
      });
      await pollUntil(async () => chunks.length, (n) => n > 0, { withinMs: 5_000 });
      expect(sub.errors).toEqual([]);

      const result = terminate(g);
      expect(await pollUntil(() => accepts(g.url), (ok) => !ok, { withinMs: 2_000, everyMs: 50 })).toBe(false);
      expect((await ws.closed).code).toBe(1001);
      await pause(500);
      res.on('data', (c: Buffer) => chunks.push(c));
      res.resume();
      await new Promise((r) => res.once('end', r));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { count: number; data: unknown[] };
      expect({ status: res.statusCode, count: body.count, rows: body.data.length }).toEqual({ status: 200, count: ROWS, rows: ROWS });
      const { ms, code } = await result;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    } finally {
      g.kill('SIGKILL');
    }
  }, 90_000);

  it('when PostgreSQL stops answering (a network partition), then SIGTERM still ends the process within 10 s', async () => {
    const { g, stuck } = await partitioned();
    try {
      const { ms } = await terminate(g);
      expect(ms).toBeLessThan(10_500);
      expect([0, 503]).toContain(await stuck);
    } finally {
      g.kill('SIGKILL');
    }
  }, 60_000);

  it('when Redis is gone, then SIGTERM still ends the process within 10 s, and the outage is not logged on every reconnect', async () => {
    const redis = await privateRedis();
    await redis.start();
    const g = await startGateway({ DATABASE_URL: await freshDb(), REDIS_URL: redis.url, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' });
    try {
      await redis.stop();
      await pause(3_000);
      const { ms, code } = await terminate(g);
      expect(ms).toBeLessThan(10_500);
      expect(code).not.toBeNull();
      expect((g.output().match(/"level":(40|50)/g) ?? []).length).toBeLessThanOrEqual(3);
    } finally {
      g.kill('SIGKILL');
    }
  }, 60_000);

  it('when a second SIGTERM comes while the first drains, then the process exits at once', async () => {
    const { g } = await partitioned();
    try {
      g.kill('SIGTERM');
      await pause(500);
      const { ms, code } = await terminate(g);
      expect(code).toBe(1);
      expect(ms).toBeLessThan(1_000);
    } finally {
      g.kill('SIGKILL');
    }
  }, 60_000);
});
