/**
 * The bounded waits of src/db/postgres.database.ts on a real PostgreSQL: a statement on the
 * pool that runs too long or meets a silent server ends as SERVICE_UNAVAILABLE after
 * DATABASE_QUERY_TIMEOUT (raw SQL and Prisma alike), a connection that cannot be opened after
 * DATABASE_CONNECT_TIMEOUT, while sessions and transactions (imports, rollups) may run
 * longer and leave the connection's own timeout as they found it.
 */
import { createPostgresDatabase, QUERY_GRACE_MS } from '../../src/db/postgres.database';
import type { Database } from '../../src/db/database';
import { describeWith } from '../helpers/requirements';
import { freshPostgres } from '../helpers/databases';
import { proxyFor, type TcpProxy } from '../helpers/tcp-proxy';

const QUERY_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 700;
const SLACK_MS = 1_000;
/** The cancelled statements sleep 3 s: any bound below that proves the cancel, with room for a loaded machine. */
const CANCEL_SLACK_MS = 1_500;

async function elapsed(p: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = Date.now();
  try {
    await p;
    return { ms: Date.now() - started, error: undefined };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}

const unavailable = { code: 'SERVICE_UNAVAILABLE' };

describeWith('DATABASE_URL', 'PostgreSQL timeouts', (serverUrl) => {
  let fresh: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  let db: Database;

  beforeAll(async () => {
    fresh = await freshPostgres(serverUrl);
    proxy = await proxyFor(fresh.url);
    // One connection, so every statement below reuses the one the previous left behind.
    db = createPostgresDatabase({ url: proxy.urlFor(fresh.url), poolSize: 1, connectionTimeoutMs: CONNECT_TIMEOUT_MS, queryTimeoutMs: QUERY_TIMEOUT_MS });
    // Prisma's first call loads its query engine, which takes seconds on a busy machine: not a timeout to measure.
    await db.prisma.$queryRawUnsafe('SELECT 1');
  });
  afterAll(async () => {
    await proxy?.restore();
    await db?.close();
    await proxy?.close();
    await fresh?.drop();
  });

  it('when a statement on the pool outlives DATABASE_QUERY_TIMEOUT, then the server cancels it: SERVICE_UNAVAILABLE, raw SQL and Prisma', async () => {
    expect(await db.query('SHOW statement_timeout')).toEqual([{ statement_timeout: `${QUERY_TIMEOUT_MS}ms` }]);
    const raw = await elapsed(db.query('SELECT pg_sleep(3)'));
    expect(raw.error).toMatchObject(unavailable);
    expect((raw.error as Error).cause).toMatchObject({ code: '57014' });
    expect(raw.ms).toBeLessThan(QUERY_TIMEOUT_MS + CANCEL_SLACK_MS);
    const prisma = await elapsed(db.prisma.$queryRawUnsafe('SELECT pg_sleep(3)'));
    expect(prisma.error).toMatchObject(unavailable);
    expect(prisma.ms).toBeLessThan(QUERY_TIMEOUT_MS + CANCEL_SLACK_MS);
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('when work runs in a transaction or a session, then it may take longer, and the connection gets its timeout back', async () => {
    const slept = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_sleep(1)');
      return (await tx.query<{ statement_timeout: string }>('SHOW statement_timeout'))[0].statement_timeout;
    });
    expect(slept).toBe('0');
    await db.session((s) => s.query('SELECT pg_sleep(1)'));
    expect(await db.query('SHOW statement_timeout')).toEqual([{ statement_timeout: `${QUERY_TIMEOUT_MS}ms` }]);
  }, 10_000);

  it('when the server goes silent, then a statement gives up after the timeout plus grace, or its own shorter timeout', async () => {
    await db.query('SELECT 1'); // an open connection for the silence to swallow
    proxy.blackhole();
    const onOpen = await elapsed(db.query('SELECT 1'));
    expect(onOpen.error).toMatchObject(unavailable);
    expect(onOpen.ms).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS + QUERY_GRACE_MS - 50);
    expect(onOpen.ms).toBeLessThan(QUERY_TIMEOUT_MS + QUERY_GRACE_MS + SLACK_MS);
    // That connection was given up; a new one cannot be opened either.
    const onNew = await elapsed(db.prisma.apiKey.findMany());
    expect(onNew.error).toMatchObject(unavailable);
    expect(onNew.ms).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
    await proxy.restore();
    await db.query('SELECT 1');
    proxy.blackhole();
    const own = await elapsed(db.query('SELECT 1', [], { timeoutMs: 200 }));
    expect(own.error).toMatchObject(unavailable);
    expect(own.ms).toBeLessThan(200 + SLACK_MS);
    await proxy.restore();
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  }, 20_000);

  it('when the connection drops while a session holds it, then the session fails with SERVICE_UNAVAILABLE and the process carries on', async () => {
    const held = db.session(async (s) => {
      await s.query('SELECT 1');
      await proxy.cut(); // the connection dies while checked out and idle
      await new Promise((r) => setTimeout(r, 200));
      await s.query('SELECT 1');
    });
    await expect(held).rejects.toMatchObject(unavailable);
    await proxy.restore();
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('when the server is down, then a session or transaction fails at once with SERVICE_UNAVAILABLE, and works again after', async () => {
    await proxy.cut();
    const tx = await elapsed(db.transaction((t) => t.query('SELECT 1')));
    expect(tx.error).toMatchObject(unavailable);
    expect(tx.ms).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
    await proxy.restore();
    expect(await db.transaction((t) => t.query<{ one: number }>('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
  });
});
