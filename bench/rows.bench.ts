/**
 * Bytes per 1m row on PostgreSQL: candles as the schema before trade flow stored them, candles
 * imported now (trade flow NULL), candles with Binance's trade flow, and the perpetual's context
 * minutes (derivatives). Each in a database of its own, the same minutes of the simulator's
 * model, canonical decimals as ingestion stores them; heap, indexes and total after VACUUM.
 *   npm run bench:rows -- [--minutes 200000]
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { MIGRATIONS_DIR, migrate } from '../src/db/migrator';
import { openDatabase } from '../src/db/open-database';
import { ContextMinutes } from '../src/domain/derivatives';
import { parseDecimal } from '../src/domain/decimal';
import { modelContext } from '../tools/venue-sim/context-model';
import { BINANCE_INTERVALS } from '../tools/venue-sim/intervals';
import { modelCandle } from '../tools/venue-sim/price-model';
import { binanceKline, hyperliquidContextValues } from '../tools/venue-sim/wire-format';
import { benchDatabase, runBench } from './bench-support';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '200000' } } });
const MINUTES = Number(values.minutes);
const MIN = 60_000;
const T0 = Date.UTC(2025, 0, 1);
const ONE_MINUTE = BINANCE_INTERVALS.get('1m')!;
/** The context pushes folded into each minute (one every 5 s). */
const UPDATES_PER_MINUTE = 12;

const exact = (v: unknown) => parseDecimal(String(v))!;

/** Minute i's kline as ingestion stores it: `time,o,h,l,c,v` and the trade flow (quote, trades, taker base, taker quote). */
function kline(i: number): { candle: string; flow: string } {
  const open = T0 + i * MIN;
  const k = binanceKline({ instrument: 'BTCUSDT', interval: '1m', openTime: open, closeTime: open + MIN - 1 }, modelCandle('binance', 'BTC', ONE_MINUTE, open));
  const iso = new Date(open).toISOString();
  return { candle: `${iso},${exact(k[1])},${exact(k[2])},${exact(k[3])},${exact(k[4])},${exact(k[5])}`, flow: `${exact(k[7])},${k[8]},${exact(k[9])},${exact(k[10])}` };
}

/** Chunks of COPY text, a minute per line. */
async function* lines(line: (i: number) => string): AsyncGenerator<string> {
  for (let i = 0; i < MINUTES; i += 10_000) {
    let chunk = '';
    for (let j = i; j < Math.min(MINUTES, i + 10_000); j++) chunk += line(j) + '\n';
    yield chunk;
  }
}

function contextLines(): (i: number) => string {
  const minutes = new ContextMinutes<number>();
  return (i) => {
    const open = T0 + i * MIN;
    for (let u = 0; u < UPDATES_PER_MINUTE; u++) {
      const at = open + (u * MIN) / UPDATES_PER_MINUTE + 500;
      const v = hyperliquidContextValues('BTC', modelContext('BTC', at));
      minutes.update(1, { openInterest: exact(v.openInterest), markPrice: exact(v.markPx), oraclePrice: exact(v.oraclePx), midPrice: exact(v.midPx), fundingRate: exact(v.funding), premium: exact(v.premium) }, at);
    }
    const [[, r]] = minutes.close(open + MIN);
    return `1,1m,${new Date(open).toISOString()},${r.openInterestOpen},${r.openInterestHigh},${r.openInterestLow},${r.openInterest},${r.markPrice},${r.oraclePrice},${r.midPrice},${r.predictedFundingRate},${r.venuePremium}`;
  };
}

interface Variant {
  name: string;
  /** The migrations before this one only (the schema as it was), or all. */
  before?: string;
  table: 'candles' | 'derivatives';
  columns: string[];
  line: (i: number) => string;
}

const CANDLE = ['series_id', 'timeframe', 'time', 'open', 'high', 'low', 'close', 'volume', 'derived'];
const FLOW = ['quote_volume', 'trades', 'taker_buy_volume', 'taker_buy_quote_volume'];
const VARIANTS: Variant[] = [
  { name: 'candles, the schema before trade flow', before: '20261127000000_derivatives_trade_flow', table: 'candles', columns: CANDLE, line: (i) => `1,1m,${kline(i).candle},f` },
  { name: 'candles imported (trade flow NULL)', table: 'candles', columns: CANDLE, line: (i) => `1,1m,${kline(i).candle},f` },
  { name: 'candles with trade flow (Binance)', table: 'candles', columns: [...CANDLE, ...FLOW], line: (i) => `1,1m,${kline(i).candle},f,${kline(i).flow}` },
  {
    name: 'derivatives (perpetual context)',
    table: 'derivatives',
    columns: ['series_id', 'timeframe', 'time', 'open_interest_open', 'open_interest_high', 'open_interest_low', 'open_interest', 'mark_price', 'oracle_price', 'mid_price', 'predicted_funding_rate', 'venue_premium'],
    line: contextLines(),
  },
];

async function measure(v: Variant): Promise<{ heap: number; indexes: number; total: number }> {
  const db = await benchDatabase();
  let dir: string | null = null;
  try {
    const store = await openDatabase({ databaseUrl: db.url, dataDir: 'memory' });
    if (v.before) {
      dir = mkdtempSync(path.join(os.tmpdir(), 'mds-migrations-'));
      cpSync(MIGRATIONS_DIR, dir, { recursive: true, filter: (src) => src === MIGRATIONS_DIR || !/^\d{14}_/.test(path.basename(src)) || path.basename(src) < v.before! });
    }
    await migrate(store, dir ?? MIGRATIONS_DIR);
    await store.query('SELECT mds_ensure_partitions($1, $2, $3)', ['1m', new Date(T0), new Date(T0 + MINUTES * MIN)]);
    await store.transaction((s) => s.copyFrom(v.table, v.columns, lines(v.line)));
    await store.close();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(`VACUUM ANALYZE ${v.table}`);
      const { rows } = await c.query<{ heap: string; indexes: string; total: string; n: string }>(
        `SELECT sum(pg_table_size(relid))::bigint AS heap, sum(pg_indexes_size(relid))::bigint AS indexes, sum(pg_total_relation_size(relid))::bigint AS total,
                (SELECT count(*) FROM ${v.table})::bigint AS n
         FROM pg_partition_tree($1::regclass) WHERE isleaf`,
        [v.table],
      );
      const n = Number(rows[0].n);
      if (n !== MINUTES) throw new Error(`${v.name}: ${n} rows stored, expected ${MINUTES}`);
      return { heap: Number(rows[0].heap) / n, indexes: Number(rows[0].indexes) / n, total: Number(rows[0].total) / n };
    } finally {
      await c.end();
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

async function main(): Promise<void> {
  console.log(`bytes per 1m row, ${MINUTES.toLocaleString('en-US')} minutes per table (after VACUUM ANALYZE):`);
  console.log('| table | heap | primary key | total |\n|---|---|---|---|');
  for (const v of VARIANTS) {
    const r = await measure(v);
    console.log(`| ${v.name} | ${r.heap.toFixed(1)} | ${r.indexes.toFixed(1)} | ${r.total.toFixed(1)} |`);
  }
}

runBench(main);
