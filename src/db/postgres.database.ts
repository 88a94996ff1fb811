/**
 * Database on a PostgreSQL server: one pg pool shared by Prisma's adapter and raw SQL. Every wait
 * on the server is bounded, so a server that is down or a silent network costs a request a few
 * seconds and a 503, never a hung socket: connecting gives up after `connectionTimeoutMs`; a pool
 * statement is cancelled by the server after `queryTimeoutMs` and abandoned by the client
 * QUERY_GRACE_MS later (its connection discarded); `session` and `transaction` (imports, migrations,
 * locks) lift the statement timeout, and TCP keep-alive still notices a vanished peer.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { DependencyState } from '../domain/dependency-state';
import { parseConnectionUrl } from './connection-url';
import { PrismaClient } from './generated/prisma/client';
import type { Database, QueryOptions, SqlSession } from './database';
import { queryConfig, run, sessionOf } from './pg-statements';
import { PrimaryLocator } from './primary-locator';
import { isConnectionFailure, isLostConnection, isReadOnlyStatement, mapUnavailable, withUnavailableMapping } from './unavailable';

// int8 (counts, epoch milliseconds) as number: every value we select fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
export const DEFAULT_QUERY_TIMEOUT_MS = 15_000;
/**
 * A pooled connection idle this long is closed. Longer than a minute: clients that poll once a
 * minute (dashboards, the live path at every close) would otherwise find the pool empty at each
 * poll, and a new connection costs a process on the server whose first statements run on cold
 * catalog caches.
 */
export const IDLE_TIMEOUT_MS = 5 * 60_000;
/** How much longer than the server's statement timeout the client waits for any answer. */
export const QUERY_GRACE_MS = 1_000;

export interface PostgresOptions {
  url: string;
  poolSize: number;
  /** Fail a query that waits longer than this for a connection (ms). */
  connectionTimeoutMs?: number;
  /** Bound on one statement run on the pool, outside `session`/`transaction` (ms). */
  queryTimeoutMs?: number;
  /** Where new connections go (one per server, shared by its pools); made from `url` when absent. */
  locator?: PrimaryLocator;
  /** Told of every connection failure and success: an outage is logged once. */
  health?: DependencyState;
}

/** What a pool tells its locator and the dependency's state after each statement or connection attempt. */
interface Watch {
  locator: PrimaryLocator;
  health?: DependencyState;
}

function noteFailure(w: Watch, err: unknown): void {
  if (!isConnectionFailure(err)) return;
  w.health?.failed(err);
  if (isLostConnection(err)) w.locator.suspect();
}

/**
 * Run a read, and once more on a fresh connection when the first attempt lost its connection
 * (a failover, a restarted server): a statement that only reads is safe to repeat; writes never are.
 */
async function watched<T>(w: Watch, text: string | undefined, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      const out = await attempt();
      w.health?.succeeded();
      return out;
    } catch (err) {
      noteFailure(w, err);
      if (tries > 1 || text === undefined || !isLostConnection(err) || !isReadOnlyStatement(text)) throw err;
    }
  }
}

/** The text of a pg query config (a string, or an object with `text`). */
function textOf(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  const text = (config as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : undefined;
}

type PoolQuery = (config: unknown, values?: unknown, cb?: unknown) => unknown;

/** A pg query config with a client-side read timeout, unless the caller set one. */
function withReadTimeout(config: unknown, ms: number): unknown {
  if (typeof config === 'string') return { text: config, query_timeout: ms };
  if (config && typeof config === 'object' && !('submit' in config) && (config as { query_timeout?: number }).query_timeout === undefined) {
    return { ...config, query_timeout: ms };
  }
  return config;
}

/** The pool of one server, with every wait bounded (above), its connections on the located host. */
function boundedPool(opts: PostgresOptions): { pool: pg.Pool; readTimeoutMs: number; watch: Watch } {
  const queryTimeoutMs = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const readTimeoutMs = queryTimeoutMs + QUERY_GRACE_MS;
  const connectTimeoutMs = opts.connectionTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const locator = opts.locator ?? new PrimaryLocator(parseConnectionUrl(opts.url), connectTimeoutMs);
  const watch: Watch = { locator, health: opts.health };
  // Each new connection goes to the host located now (the pool's options carry no host).
  class LocatedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, ...locator.config() });
    }
  }
  const pool = new pg.Pool({
    Client: LocatedClient,
    max: opts.poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    // The server cancels a statement after this (a session setting of every connection;
    // `session` lifts it while it holds the connection).
    statement_timeout: queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    // target_session_attrs=read-write: a connection that landed on a node in recovery is closed.
    onConnect: (client: pg.PoolClient) => locator.verify(client),
  } as unknown as pg.PoolConfig);
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', (err) => noteFailure(watch, err));
  // Statements on the pool (ours and Prisma's adapter's) also stop waiting client-side: a
  // silent server never answers with the statement timeout. Checked-out clients keep none.
  const poolQuery = pool.query.bind(pool) as PoolQuery;
  (pool as unknown as { query: PoolQuery }).query = (config, values, cb) => {
    const bounded = withReadTimeout(config, readTimeoutMs);
    if (typeof values === 'function' || typeof cb === 'function') return poolQuery(bounded, values, cb);
    return watched(watch, textOf(config), () => poolQuery(bounded, values) as Promise<unknown>);
  };
  return { pool, readTimeoutMs, watch };
}

/** One statement on a pooled connection, bounded by the pool's read timeout (or a shorter one of its own). */
function pooledQuery(pool: pg.Pool, readTimeoutMs: number, watch: Watch): SqlSession['query'] {
  return <R extends object>(text: string, params: unknown[] = [], qo: QueryOptions = {}) =>
    watched(watch, text, () => onPooledConnection<R>(pool, readTimeoutMs, text, params, qo)).catch(mapUnavailable);
}

async function onPooledConnection<R extends object>(pool: pg.Pool, readTimeoutMs: number, text: string, params: unknown[], qo: QueryOptions): Promise<R[]> {
  {
    const client = await pool.connect();
    // A connection dropping under the statement reaches it as an error; without a listener
    // the client's 'error' event would crash the process (as in `checkout`).
    const onError = () => undefined;
    client.on('error', onError);
    let failure: Error | undefined;
    try {
      const res = await run(client, queryConfig(text, params, qo), Math.min(qo.timeoutMs ?? readTimeoutMs, readTimeoutMs), qo.mapRow);
      return res.rows as R[];
    } catch (err) {
      failure = err as Error;
      throw err;
    } finally {
      client.removeListener('error', onError);
      // As pool.query does: a connection whose statement failed or went unanswered is closed.
      client.release(failure);
    }
  }
}

/** Statements on a pool of their own, nothing else: a read-only server (a replica), or a side channel. */
export interface PostgresReader {
  query: SqlSession['query'];
  close(): Promise<void>;
}

/** A pool without Prisma, sessions or transactions: for reads on a replica and the replicas' position polls. */
export function createPostgresReader(opts: PostgresOptions): PostgresReader {
  const { pool, readTimeoutMs, watch } = boundedPool(opts);
  return {
    query: pooledQuery(pool, readTimeoutMs, watch),
    close: () => pool.end().catch(() => undefined),
  };
}

export function createPostgresDatabase(opts: PostgresOptions): Database {
  const { pool, readTimeoutMs, watch } = boundedPool(opts);
  const prisma = withUnavailableMapping(new PrismaClient({ adapter: new PrismaPg(pool) }));

  /**
   * A checked-out connection for `fn`, as a session (no statement timeout while it is held) or
   * a transaction (BEGIN with SET LOCAL, which ends with it: one round trip each way). A
   * connection that failed is discarded; a healthy one goes back with the pool's timeout.
   */
  async function checkout<T>(kind: 'session' | 'transaction', fn: (s: SqlSession) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch((err) => {
      noteFailure(watch, err);
      return mapUnavailable(err);
    });
    let broken = false;
    // A checked-out client has no listener of the pool's: without this one, a connection
    // dropping while the session holds it would be an unhandled 'error' event (a crash). The
    // failure itself reaches the statement in flight, or the next one, as SERVICE_UNAVAILABLE.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query(kind === 'session' ? 'SET statement_timeout = 0' : 'BEGIN; SET LOCAL statement_timeout = 0').catch(mapUnavailable);
      const out = await fn(sessionOf(client));
      if (kind === 'transaction') await client.query('COMMIT').catch(mapUnavailable);
      else broken = await client.query('RESET statement_timeout').then(() => false, () => true);
      watch.health?.succeeded();
      return out;
    } catch (err) {
      noteFailure(watch, (err as { cause?: unknown }).cause ?? err);
      // A failed session's connection is in an unknown state; a failed transaction's is kept
      // when its rollback works and it did not lose its connection or land on a node in recovery.
      broken = broken || kind === 'session' || isConnectionFailure(err) || (await client.query('ROLLBACK').then(() => false, () => true));
      throw err;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  const session = <T>(fn: (s: SqlSession) => Promise<T>): Promise<T> => checkout('session', fn);
  // pg connects on first use: a process that never creates a partition never opens it.
  const autonomous = createPostgresReader({ ...opts, poolSize: 1, locator: watch.locator });

  return {
    kind: 'postgres',
    prisma,
    listen: (channel, onMessage, onListening) => listenOn(opts, watch, channel, onMessage, onListening),
    query: pooledQuery(pool, readTimeoutMs, watch),
    locator: watch.locator,
    async exec(script) {
      await pool.query(script).catch(mapUnavailable);
    },
    copyFrom: () => Promise.reject(new Error('copyFrom needs a transaction or session')),
    session,
    transaction: (fn) => checkout('transaction', fn),
    autonomous,
    async close() {
      await prisma.$disconnect().catch(() => undefined);
      await Promise.all([pool.end().catch(() => undefined), autonomous.close()]);
    },
  };
}

/** Waits before opening a lost listening connection again: doubling from the first, up to the last. */
const LISTEN_RETRY_MS = [250, 5_000];
/** How often a listening connection proves it still reaches the primary (a silent one misses messages). */
const LISTEN_HEARTBEAT_MS = 2_000;

/**
 * LISTEN on a connection of its own (never the pool's: it stays open), on the located primary
 * (where NOTIFY is sent). It is reported lost, and opened again, when it fails, when a heartbeat
 * goes unanswered or finds a node in recovery, and when the pool's primary moves elsewhere.
 */
async function listenOn(
  opts: PostgresOptions,
  watch: Watch,
  channel: string,
  onMessage: (payload: string) => void,
  onListening: (listening: boolean) => void,
): Promise<() => Promise<void>> {
  const connectTimeoutMs = opts.connectionTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  let current: { client: pg.Client; lose: () => void } | undefined;
  let stopped = false;
  let retryMs = LISTEN_RETRY_MS[0];
  let timer: NodeJS.Timeout | undefined;
  const open = async (): Promise<void> => {
    if (stopped) return;
    const host = watch.locator.host;
    const c = new pg.Client({ ...watch.locator.config(), connectionTimeoutMillis: connectTimeoutMs, keepAlive: true, application_name: `mds listen ${channel}` });
    let lost = false;
    const heartbeat: { timer?: NodeJS.Timeout } = {};
    const lose = () => {
      if (lost) return;
      lost = true;
      clearInterval(heartbeat.timer);
      if (current?.client === c) current = undefined;
      onListening(false);
      c.end().catch(() => undefined);
      if (!stopped) timer = setTimeout(() => void open(), retryMs).unref();
      retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MS[1]);
    };
    c.on('error', lose);
    c.on('end', lose);
    c.on('notification', (n) => onMessage(n.payload ?? ''));
    try {
      await c.connect();
      await watch.locator.verify(c);
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      noteFailure(watch, err);
      return lose();
    }
    if (stopped || lost) return void c.end().catch(() => undefined);
    current = { client: c, lose };
    retryMs = LISTEN_RETRY_MS[0];
    heartbeat.timer = setInterval(() => {
      if (watch.locator.host !== host) return lose();
      run(c, { text: 'SELECT pg_is_in_recovery() AS r' }, connectTimeoutMs).then(
        (res) => (res.rows[0] as { r: boolean }).r && lose(),
        lose,
      );
    }, LISTEN_HEARTBEAT_MS).unref();
    onListening(true);
  };
  await open();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const c = current;
    current = undefined;
    onListening(false);
    if (c) {
      c.lose();
      await c.client.end().catch(() => undefined);
    }
  };
}
