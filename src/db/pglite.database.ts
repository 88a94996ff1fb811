/**
 * Embedded default: PGlite (PostgreSQL compiled to WASM) in this process, files under DATA_DIR.
 * It has a single connection, so a "session" is the instance itself and transactions are
 * serialized by PGlite's own mutex.
 */
import { setFlagsFromString } from 'node:v8';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client';
import type { Database, QueryOptions, SqlSession } from './database';
import { PgliteTextReader } from './pglite-text-reader';
import { mapUnavailable, withUnavailableMapping } from './unavailable';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER } from '../encoding/binary-rows';

const parsers = { [types.INT8]: (v: string) => Number(v) };

/** Rows per COPY statement: PGlite takes COPY input as one in-memory blob. */
const COPY_CHUNK_BYTES = 8 * 1024 * 1024;

function sessionOf(q: PGlite | Transaction, textRows: PgliteTextReader, inTransaction: boolean): SqlSession {
  return {
    async query<R extends object>(text: string, params: unknown[] = [], opts: QueryOptions = {}) {
      const rows = opts.textRows
        ? ((await textRows.query(text, params, opts.prepare === true, inTransaction).catch(mapUnavailable)) as unknown as R[])
        : (await q.query<R>(text, params, { parsers }).catch(mapUnavailable)).rows;
      return opts.mapRow ? rows.map(opts.mapRow as (r: R) => R) : rows;
    },
    async exec(script) {
      await q.exec(script);
    },
    async copyFrom(table, columns, chunks, format = 'csv') {
      const sql = `COPY ${table} (${columns.join(', ')}) FROM '/dev/blob' WITH (FORMAT ${format})`;
      let buf: Array<string | Buffer> = [];
      let size = 0;
      const flush = async () => {
        if (size === 0) return;
        const blob = format === 'binary' ? [COPY_BINARY_HEADER, ...(buf as Buffer[]), COPY_BINARY_TRAILER] : [(buf as string[]).join('')];
        await q.query(sql, [], { blob: new Blob(blob) });
        buf = [];
        size = 0;
      };
      for await (const chunk of chunks) {
        buf.push(chunk);
        size += chunk.length;
        if (size >= COPY_CHUNK_BYTES) await flush();
      }
      await flush();
    },
  };
}

/**
 * PostgreSQL's default shared_buffers (128 MB) lives in PGlite's WebAssembly memory, which never
 * shrinks: a buffer pool near the size of the whole demo data set, mostly a second copy of
 * files the operating system caches anyway. A small pool keeps the server's memory small. A
 * process that bulk-loads and exits (`bulkLoad`: the first start's seed) keeps the default, which
 * writes fewer evicted pages back.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * For the same reason, the embedded server (server.ts, before it opens the database) optimizes
 * only PostgreSQL's hottest WebAssembly functions. V8 optimizes one (TurboFan, on its worker
 * threads) once it has run a budget of code, and glibc keeps each worker thread's peak of
 * compilation memory in that thread's arena once freed. A budget a hundred times V8's default
 * spares most of what the start and the later demo seed would optimize, while a read's hot loops
 * are still optimized within its first requests (bench/README.md, embedded: the figures). V8
 * reads the flag as it instantiates a module: it holds for the rest of the process.
 */
export function optimizeHotWasmOnly(): void {
  setFlagsFromString('--wasm-tiering-budget=180000000');
}

/** `from`: in memory only, the database to start with (a tar of a data directory, pglite-template.ts). */
export async function createPgliteDatabase(dataDir: string | undefined, bulkLoad = false, from?: Blob): Promise<Database> {
  const options = { ...(bulkLoad ? {} : { startParams: START_PARAMS }), ...(from && dataDir === undefined ? { loadDataDir: from } : {}) };
  const db = await PGlite.create(dataDir, options);
  const prisma = withUnavailableMapping(new PrismaClient({ adapter: new PrismaPGlite(db) }));
  const textRows = new PgliteTextReader(db);
  const base = sessionOf(db, textRows, false);
  return {
    kind: 'pglite',
    prisma,
    ...base,
    session: (fn) => fn(base),
    transaction: (fn) => db.transaction((tx) => fn(sessionOf(tx, textRows, true))),
    autonomous: null,
    async listen(channel, onMessage, onListening) {
      // One process, one connection: nothing is missed while it is open.
      const stop = await db.listen(channel, onMessage);
      onListening(true);
      return async () => {
        onListening(false);
        if (!db.closed) await stop();
      };
    },
    async close() {
      await prisma.$disconnect().catch(() => undefined);
      if (!db.closed) await db.close();
    },
  };
}
