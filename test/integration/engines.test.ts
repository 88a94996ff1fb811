/**
 * The service on TimescaleDB and on Citus (src/db/engine-layout.ts, docs/SCALING.md): private
 * clusters of a build named by TIMESCALEDB_PG_CONFIG / CITUS_PG_CONFIG (scripts/engine-cluster.sh),
 * skipped visibly without one. A database filled on the plain layout converts by copy and swap
 * with every row kept, then serves the same bytes and takes the writers' upserts; on Citus a
 * killed worker is a 503, never a 500.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { applyEngineLayout } from '../../src/db/engine-layout';
import { HOUR, MINUTE, T0, iso, loadFixtures } from '../helpers/fixtures';
import { freshPostgres, joinCitusWorkers, type FreshDatabase } from '../helpers/databases';
import { describeWithEngine, type EngineBuild } from '../helpers/requirements';
import { startTestServer, type TestServer } from '../helpers/server';

const run = promisify(execFile);
// Clusters of several servers on a shared machine: conversions and restarts take their time.
jest.setTimeout(300_000);
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'engine-cluster.sh');
const NOW = T0 + 40 * 86_400_000;
const TABLES = ['series', 'candles', 'features', 'funding_rates', 'derivatives', 'quality'];

/** The pages compared before and after the conversion: every data route's shape. */
const PAGES = [
  `/v1/ohlcv?symbol=ETH-USDT&exchange=spot&timeframe=1m&start=${iso(T0)}&limit=10000`,
  `/v1/ohlcv?symbol=BTC-USDT&exchange=perp&timeframe=1h&start=${iso(T0)}&limit=10000`,
  `/v1/ohlcv?symbol=SOL-USDT&exchange=spot&timeframe=1d&start=${iso(T0)}&format=csv`,
  `/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=1h&features=rsi_14,macd,bb_upper,vwap_20,atr_14&start=${iso(T0)}&limit=10000`,
  `/v1/features?symbol=BTC-USDT&exchange=perp&timeframe=funding&features=funding_norm,premium_pct&start=${iso(T0)}`,
  `/v1/funding?symbol=BTC-USDT&exchange=perp&start=${iso(T0)}&end=${iso(T0 + 700 * HOUR)}`,
  `/v1/multi-asset?symbols=ETH-USDT,SOL-USDT&exchange=spot&timeframe=1m&field=close&start=${iso(T0)}&end=${iso(T0 + 600 * MINUTE)}`,
  `/v1/quality?symbol=BTC-USDT&exchange=spot`,
  `/v1/markets?exchange=spot`,
];

/** `n` consecutive ports nothing listens on. */
async function freePorts(n: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const srv = net.createServer().once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = await free(base + i);
    if (ok) return base;
  }
}

interface Cluster {
  url: string;
  dir: string;
  port: number;
  /** A node's pg_ctl (n0 the coordinator, n1.. the workers). */
  ctl(node: number, ...args: string[]): Promise<void>;
  stop(): Promise<void>;
}

async function startCluster(build: EngineBuild, pgConfig: string, workers = 0): Promise<Cluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-engine-'));
  const port = await freePorts(workers + 1);
  const engine = build === 'CITUS_PG_CONFIG' ? 'citus' : 'timescaledb';
  const env = { ...process.env, [build]: pgConfig };
  const { stdout } = await run('bash', [SCRIPT, 'start', engine, dir, String(port), String(workers)], { env, timeout: 180_000 });
  const bin = (await run(pgConfig, ['--bindir'])).stdout.trim();
  const asPg = (args: string[]) => (process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', ...args]) : run(args[0], args.slice(1)));
  return {
    url: stdout.trim().split('\n').pop()!,
    dir,
    port,
    async ctl(node, ...args) {
      await asPg([path.join(bin, 'pg_ctl'), '-D', path.join(dir, `n${node}`), ...args]);
    },
    async stop() {
      await run('bash', [SCRIPT, 'stop', dir], { env, timeout: 120_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function counts(url: string): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const out: Record<string, number> = {};
    for (const t of TABLES) out[t] = Number((await c.query(`SELECT count(*) AS n FROM "${t}"`)).rows[0].n);
    return out;
  } finally {
    await c.end();
  }
}

async function sql<R extends object>(url: string, text: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows as R[];
  } finally {
    await c.end();
  }
}

async function pages(srv: TestServer, key: string): Promise<Array<[string, number, string, string | null]>> {
  const out: Array<[string, number, string, string | null]> = [];
  for (const p of PAGES) {
    const res = await srv.rest(p, { key });
    out.push([p, res.status, await res.text(), res.headers.get('etag')]);
  }
  return out;
}

/** Fill `db` on the plain layout, then open it on `engine`: the rows, pages and writes compared. */
function convertsAndServes(engine: 'timescaledb' | 'citus', database: () => FreshDatabase) {
  let key: string;
  let before: Awaited<ReturnType<typeof pages>>;
  let rows: Record<string, number>;

  it(`when a database filled on the plain layout is opened with DATABASE_ENGINE=${engine}, then every row is kept and every page is byte-identical`, async () => {
    const plain = await startTestServer({ database: database().url, clock: () => NOW });
    try {
      await loadFixtures(plain.services, NOW);
      key = await plain.key('pro');
      before = await pages(plain, key);
      rows = await counts(database().url);
    } finally {
      await plain.stop();
    }
    expect(before.map(([p, status]) => [p, status])).toEqual(PAGES.map((p) => [p, 200]));
    expect(rows.candles).toBeGreaterThan(10_000);
    const srv = await startTestServer({ database: database().url, clock: () => NOW, env: { DATABASE_ENGINE: engine } });
    try {
      expect(await counts(database().url)).toEqual(rows);
      expect(await srv.services.store.partitions.managed()).toBe(false);
      expect(await pages(srv, key)).toEqual(before);
      // The writers' upserts over the same rows (into compressed chunks on TimescaleDB): nothing added.
      await loadFixtures(srv.services, NOW);
      expect(await counts(database().url)).toEqual(rows);
      expect(await pages(srv, key)).toEqual(before);
    } finally {
      await srv.stop();
    }
  }, 300_000);
}

/**
 * A private cluster of `build` (and `workers` Citus workers joined) with a fresh database on it,
 * for the enclosing describe block; both read once its beforeAll ran.
 */
function useEngineDatabase(build: EngineBuild, pgConfig: string, workers = 0): { cluster: () => Cluster; db: () => FreshDatabase } {
  let cluster: Cluster | undefined;
  let db: FreshDatabase | undefined;
  beforeAll(async () => {
    cluster = await startCluster(build, pgConfig, workers);
    db = await freshPostgres(cluster.url);
    if (workers > 0) await joinCitusWorkers(cluster.url, db.url);
  }, 240_000);
  afterAll(async () => {
    try {
      await db?.drop();
    } finally {
      await cluster?.stop();
    }
  }, 120_000);
  return { cluster: () => cluster!, db: () => db! };
}

describeWithEngine('TIMESCALEDB_PG_CONFIG', 'TimescaleDB', (pgConfig) => {
  const engine = useEngineDatabase('TIMESCALEDB_PG_CONFIG', pgConfig);

  convertsAndServes('timescaledb', engine.db);

  it('then candles, features, derivatives and funding_rates are hypertables compressed by series (and timeframe) in time order, under a policy', async () => {
    const rows = await sql<{ t: string; seg: string; ord: string; policy: boolean }>(
      engine.db().url,
      `SELECT h.hypertable_name AS t,
              (SELECT string_agg(attname, ',' ORDER BY segmentby_column_index) FROM timescaledb_information.compression_settings s
                WHERE s.hypertable_name = h.hypertable_name AND segmentby_column_index IS NOT NULL) AS seg,
              (SELECT string_agg(attname, ',') FROM timescaledb_information.compression_settings s
                WHERE s.hypertable_name = h.hypertable_name AND orderby_column_index IS NOT NULL) AS ord,
              EXISTS (SELECT 1 FROM timescaledb_information.jobs j WHERE j.hypertable_name = h.hypertable_name AND j.proc_name = 'policy_compression') AS policy
       FROM timescaledb_information.hypertables h ORDER BY 1`,
    );
    expect(rows).toEqual([
      { t: 'candles', seg: 'series_id,timeframe', ord: 'time', policy: true },
      { t: 'derivatives', seg: 'series_id,timeframe', ord: 'time', policy: true },
      { t: 'features', seg: 'series_id,timeframe', ord: 'time', policy: true },
      { t: 'funding_rates', seg: 'series_id', ord: 'time', policy: true },
    ]);
  });

  it('when every chunk is compressed, then the pages stay byte-identical and a second migration changes nothing', async () => {
    const srv = await startTestServer({ database: engine.db().url, clock: () => NOW, env: { DATABASE_ENGINE: 'timescaledb' } });
    try {
      const key = await srv.key('pro');
      const before = await pages(srv, key);
      const [{ n }] = await sql<{ n: string }>(engine.db().url, `SELECT count(compress_chunk(c, true)) AS n FROM show_chunks('candles') c`);
      expect(Number(n)).toBeGreaterThan(0);
      await sql(engine.db().url, `SELECT compress_chunk(c, true) FROM show_chunks('features') c`);
      expect(await pages(srv, key)).toEqual(before);
      expect(await srv.services.store.db.session((s) => applyEngineLayout(s, 'timescaledb'))).toEqual([]);
    } finally {
      await srv.stop();
    }
  });

  it('when RETENTION_1M has passed the 1m rows, then the partition job deletes them, keeps the rollups and drops no chunk that holds them', async () => {
    const tally = () =>
      sql<{ tf: string; n: string }>(engine.db().url, `SELECT timeframe AS tf, count(*) AS n FROM candles WHERE timeframe IN ('1m', '1h') GROUP BY 1 ORDER BY 1`);
    const before = await tally();
    expect(before.map((r) => r.tf)).toEqual(['1h', '1m']);
    const srv = await startTestServer({ database: engine.db().url, clock: () => NOW, env: { DATABASE_ENGINE: 'timescaledb', RETENTION_1M: '10d' } });
    try {
      const run = await srv.services.partitions.run(NOW);
      expect(run.created).toBe(0);
      expect(await tally()).toEqual(before.filter((r) => r.tf === '1h'));
      const [{ n }] = await sql<{ n: string }>(engine.db().url, `SELECT count(*) AS n FROM features WHERE timeframe = '1m'`);
      expect(Number(n)).toBe(0);
    } finally {
      await srv.stop();
    }
  }, 300_000);
});

describeWithEngine('CITUS_PG_CONFIG', 'Citus, a coordinator and two workers', (pgConfig) => {
  const engine = useEngineDatabase('CITUS_PG_CONFIG', pgConfig, 2);

  convertsAndServes('citus', engine.db);

  it('then series is a reference table and every table holding a series is distributed by series_id, colocated, over both workers', async () => {
    const rows = await sql<{ t: string; method: string; col: string | null; colocation: number }>(
      engine.db().url,
      `SELECT logicalrelid::regclass::text AS t, partmethod AS method, column_to_column_name(logicalrelid, partkey) AS col, colocationid AS colocation
       FROM pg_dist_partition ORDER BY 1`,
    );
    const distributed = rows.filter((r) => r.method === 'h');
    expect(rows.find((r) => r.t === 'series')?.method).toBe('n');
    expect(distributed.map((r) => r.t)).toEqual(expect.arrayContaining(['candles', 'features', 'funding_rates', 'derivatives', 'quality']));
    expect(new Set(distributed.map((r) => r.col))).toEqual(new Set(['series_id']));
    expect(new Set(distributed.map((r) => r.colocation)).size).toBe(1);
    const [{ nodes }] = await sql<{ nodes: string }>(
      engine.db().url,
      `SELECT count(DISTINCT nodeport) AS nodes FROM pg_dist_shard_placement p JOIN pg_dist_shard s USING (shardid) WHERE s.logicalrelid = 'candles'::regclass`,
    );
    expect(Number(nodes)).toBe(2);
  });

  it('when a worker is killed, then the reads of its series answer 503 (never 500), and 200 again once it is back', async () => {
    const srv = await startTestServer({ database: engine.db().url, clock: () => NOW, env: { DATABASE_ENGINE: 'citus', DATABASE_QUERY_TIMEOUT: '5s' } });
    try {
      const key = await srv.key('pro');
      await engine.cluster().ctl(2, '-m', 'immediate', '-w', 'stop');
      let down: Array<[string, number]>;
      try {
        down = (await pages(srv, key)).map(([p, status]) => [p, status]);
      } finally {
        await engine.cluster().ctl(2, '-l', path.join(engine.cluster().dir, 'n2.log'), '-w', 'start');
      }
      expect(down.map(([, status]) => status)).toContain(503);
      expect(down.filter(([, status]) => status !== 200 && status !== 503)).toEqual([]);
      const again = (await pages(srv, key)).map(([p, status]) => [p, status]);
      expect(again).toEqual(PAGES.map((p) => [p, 200]));
    } finally {
      await srv.stop();
    }
  }, 120_000);
});
