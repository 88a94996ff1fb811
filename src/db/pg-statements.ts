/**
 * Statements on one pg client: a statement's config (prepared under a name derived from its
 * text, or its values as texts), run with its result handed over by pg's callback or row by row,
 * and the SqlSession of a dedicated connection (session or transaction). The pool and its
 * failure handling are postgres.database.ts's.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFromStream } from 'pg-copy-streams';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER } from '../encoding/binary-rows';
import type { QueryOptions, SqlSession } from './database';
import { mapUnavailable } from './unavailable';

/** Every value as its text: the type parsers of a `textRows` query. */
const TEXT_TYPES = { getTypeParser: () => (v: string) => v };

/**
 * Run one statement on a client, its result handed over by pg's callback, giving up after
 * `timeoutMs` (when given) with pg's own read-timeout error (mapped to SERVICE_UNAVAILABLE).
 * Not pg's promise form nor its `query_timeout`: both set the query's callback after pg has
 * built the query, which leaves more garbage for the collector on every large read
 * (bench/README.md).
 */
export function run(client: pg.ClientBase, config: pg.QueryConfig, timeoutMs?: number, mapRow?: QueryOptions['mapRow']): Promise<{ rows: unknown[] }> {
  return new Promise((resolve, reject) => {
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => reject(new Error('Query read timeout')), timeoutMs);
    if (!mapRow) {
      client.query(config, (err: Error | undefined, res: pg.QueryResult) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(res);
      });
      return;
    }
    // Row by row (no callback: pg keeps no rows of its own), each turned into the caller's.
    const rows: unknown[] = [];
    let failure: unknown;
    const query = new pg.Query(config);
    query.on('row', (row: unknown) => {
      if (failure !== undefined) return;
      try {
        rows.push(mapRow(row as never));
      } catch (err) {
        failure = err;
      }
    });
    query.on('error', (err: Error) => {
      clearTimeout(timer);
      reject(err);
    });
    query.on('end', () => {
      clearTimeout(timer);
      if (failure !== undefined) reject(failure as Error);
      else resolve({ rows });
    });
    client.query(query);
  });
}

/** The pg config of one statement. */
export function queryConfig(text: string, params: unknown[], opts: QueryOptions): pg.QueryConfig {
  const config: pg.QueryConfig = { text, values: params, name: statementName(text, opts) };
  if (opts.textRows) Object.assign(config, { rowMode: 'array', types: TEXT_TYPES });
  return config;
}

const statementNames = new Map<string, string>();

/** The name of the prepared statement of `text` (the same on every connection), when asked for. */
function statementName(text: string, opts: QueryOptions): string | undefined {
  if (!opts.prepare) return undefined;
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `mds_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Binary COPY rows between the format's header and trailer. */
async function* framed(rows: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield COPY_BINARY_HEADER;
  yield* rows;
  yield COPY_BINARY_TRAILER;
}

/** SQL on a dedicated connection (session or transaction): no timeout of its own. */
export function sessionOf(client: pg.PoolClient): SqlSession {
  return {
    async query<R extends object>(text: string, params: unknown[] = [], opts: QueryOptions = {}) {
      const res = await run(client, queryConfig(text, params, opts), opts.timeoutMs, opts.mapRow).catch(mapUnavailable);
      return res.rows as R[];
    },
    async exec(script) {
      await client.query(script).catch(mapUnavailable);
    },
    async copyFrom(table, columns, chunks, format = 'csv') {
      const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT ${format})`;
      await pipeline(Readable.from(format === 'binary' ? framed(chunks as AsyncIterable<Buffer>) : chunks), client.query(copyFromStream(sql)));
    },
  };
}
