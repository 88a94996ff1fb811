/** Database on a PostgreSQL server: one pg pool shared by Prisma's adapter and raw SQL. */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { from as copyFromStream } from 'pg-copy-streams';
import { PrismaClient } from '../generated/prisma/client';
import type { Database, Row, SqlSession } from './database';
import { mapUnavailable } from './unavailable';

// int8 (counts, epoch milliseconds) as number: every value we select fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresOptions {
  url: string;
  poolSize: number;
  /** Fail a query that waits longer than this for a connection (ms). */
  connectionTimeoutMs?: number;
  statementTimeoutMs?: number;
}

function sessionOf(client: pg.PoolClient | pg.Pool): SqlSession {
  return {
    async query<R extends Row>(text: string, params: unknown[] = []) {
      const res = await client.query(text, params).catch(mapUnavailable);
      return res.rows as R[];
    },
    async exec(script) {
      await client.query(script);
    },
    async copyFrom(table, columns, csvChunks) {
      if (!('release' in client)) throw new Error('copyFrom needs a dedicated connection');
      const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT csv)`;
      await pipeline(Readable.from(csvChunks), client.query(copyFromStream(sql)));
    },
  };
}

export function createPostgresDatabase(opts: PostgresOptions): Database {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 5_000,
    statement_timeout: opts.statementTimeoutMs,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const base = sessionOf(pool);

  async function session<T>(fn: (s: SqlSession) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch(mapUnavailable);
    let broken = false;
    try {
      return await fn(sessionOf(client));
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  return {
    kind: 'postgres',
    prisma,
    query: base.query,
    exec: base.exec,
    copyFrom: () => Promise.reject(new Error('copyFrom needs a transaction or session')),
    session,
    transaction: (fn) =>
      session(async (s) => {
        await s.query('BEGIN');
        try {
          const out = await fn(s);
          await s.query('COMMIT');
          return out;
        } catch (err) {
          await s.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    async close() {
      await prisma.$disconnect().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
