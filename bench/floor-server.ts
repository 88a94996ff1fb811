/**
 * The floor of the HTTP benchmarks: what a 10,000-row page costs at the least. Plain node:http and
 * pg, none of the service's code: a plain query (rows as arrays, values as PostgreSQL's text), the
 * time formatted in JS, the JSON built by hand. The bench checks that its bytes equal the
 * gateway's before it times anything.
 *   GET /ohlcv?series=ID&timeframe=1m&start=ISO&end=ISO&limit=N&symbol=S&exchange=E
 *   GET /features?series=ID&timeframe=1m&start=ISO&end=ISO&features=a,b,c&symbol=S&exchange=E
 */
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const text = { getTypeParser: () => (v: string) => v };

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
let lastDay = NaN;
let dayText = '';
/** Epoch seconds (date_part's text) -> '2024-01-01T00:00:00+00:00', the date kept per day. */
function isoTime(t: string): string {
  const sec = Math.floor(Number(t));
  const day = Math.floor(sec / 86_400);
  if (day !== lastDay) {
    lastDay = day;
    dayText = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  const s = sec - day * 86_400;
  return `${dayText}${TWO[(s / 3600) | 0]}:${TWO[((s % 3600) / 60) | 0]}:${TWO[s % 60]}+00:00`;
}

/** A stored decimal with exactly 6 places (demo prices have at most 6: padding suffices). */
function six(v: string): string {
  const dot = v.indexOf('.');
  if (dot < 0) return `${v}.000000`;
  const places = v.length - dot - 1;
  if (places > 6) throw new Error(`floor: ${v} has more than 6 places`);
  return v + '000000'.slice(places);
}

async function ohlcv(q: URLSearchParams): Promise<string> {
  const limit = Number(q.get('limit'));
  const { rows } = await pool.query<string[]>({
    text: `SELECT date_part('epoch', time), open, high, low, close, volume FROM candles
           WHERE series_id = $1 AND timeframe = $2 AND time >= $3 AND time <= $4 ORDER BY time LIMIT $5`,
    values: [q.get('series'), q.get('timeframe'), q.get('start'), q.get('end'), limit + 1],
    rowMode: 'array',
    types: text,
  });
  const n = Math.min(rows.length, limit);
  let data = '';
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    data += `${i ? ',' : ''}{"time":"${isoTime(r[0])}","open":"${six(r[1])}","high":"${six(r[2])}","low":"${six(r[3])}","close":"${six(r[4])}","volume":"${six(r[5])}"}`;
  }
  const next = rows.length > limit ? `"${isoTime(rows[limit][0])}"` : 'null';
  return `{"symbol":"${q.get('symbol')}","exchange":"${q.get('exchange')}","timeframe":"${q.get('timeframe')}","count":${n},"next_start":${next},"data":[${data}]}`;
}

async function features(q: URLSearchParams): Promise<string> {
  const names = q.get('features')!.split(',');
  const limit = 10_000;
  // The names are the bench's own list (the floor trusts its caller).
  const { rows } = await pool.query<Array<string | null>>({
    text: `SELECT date_part('epoch', time), ${names.join(', ')} FROM features
           WHERE series_id = $1 AND timeframe = $2 AND time >= $3 AND time <= $4 ORDER BY time LIMIT $5`,
    values: [q.get('series'), q.get('timeframe'), q.get('start'), q.get('end'), limit + 1],
    rowMode: 'array',
    types: text,
  });
  const keys = names.map((n) => `,"${n}":`);
  const n = Math.min(rows.length, limit);
  let data = '';
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    let row = `${i ? ',' : ''}{"time":"${isoTime(r[0]!)}"`;
    for (let j = 0; j < keys.length; j++) row += keys[j] + (r[j + 1] === null ? 'null' : `"${r[j + 1]}"`);
    data += row + '}';
  }
  const next = rows.length > limit ? `"${isoTime(rows[limit][0]!)}"` : 'null';
  return (
    `{"symbol":"${q.get('symbol')}","exchange":"${q.get('exchange')}","timeframe":"${q.get('timeframe')}",` +
    `"features":${JSON.stringify(names)},"count":${n},"next_start":${next},"data":[${data}]}`
  );
}

const server = http.createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  if (u.pathname === '/health') return void res.end('ok');
  const route = u.pathname === '/ohlcv' ? ohlcv : u.pathname === '/features' ? features : null;
  if (!route) return void res.writeHead(404).end();
  route(u.searchParams).then(
    (body) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    },
    (err: Error) => res.writeHead(500).end(err.message),
  );
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
