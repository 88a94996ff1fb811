/**
 * The floor of the /v1/ohlcv benchmark: plain node:http + pg running the same SQL as the
 * service and building the same JSON bytes by hand. No Express, no auth, no quota, no
 * validation, no logging: what the request costs at the least.
 *   GET /ohlcv?series=ID&timeframe=1m&start=ISO&end=ISO&limit=N&symbol=S&exchange=E
 */
import http from 'node:http';
import pg from 'pg';
import { CANDLES_SQL } from '../src/db/candles.repository';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const KEYS = ['time', 'open', 'high', 'low', 'close', 'volume'];

const server = http.createServer(async (req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  if (u.pathname === '/health') return void res.end('ok');
  const q = u.searchParams;
  const limit = Number(q.get('limit'));
  const { rows } = await pool.query<Record<string, string>>(CANDLES_SQL, [[Number(q.get('series'))], q.get('timeframe'), new Date(q.get('start')!), new Date(q.get('end')!), limit + 1]);
  const next = rows.length > limit ? `"${rows[limit].time}"` : 'null';
  const data = rows.slice(0, limit).map((r) => '{' + KEYS.map((k) => `"${k}":"${r[k]}"`).join(',') + '}');
  const body =
    `{"symbol":"${q.get('symbol')}","exchange":"${q.get('exchange')}","timeframe":"${q.get('timeframe')}",` +
    `"count":${data.length},"next_start":${next},"data":[${data.join(',')}]}`;
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
