/**
 * The server in-process on port 0 over a real database (PGlite in memory unless a
 * DATABASE_URL is given), spoken to over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { startServer, type RunningServer } from '../../src/server';
import type { Tier } from '../../src/domain/tiers';
import { testConfig } from './config';
import type { Json } from './json';

export type { Json };

export interface TestServer extends RunningServer {
  /** Everything the server logged, as text. */
  logs(): string;
  key(tier: Tier, userId?: string): Promise<string>;
  rest(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  gql(query: string, variables?: Record<string, unknown>, key?: string): Promise<Response>;
  /** GET a REST path with a key and parse the JSON body. */
  getJson(path: string, key: string): Promise<{ status: number; headers: Headers; body: Json }>;
}


export interface TestServerOptions {
  env?: Record<string, string | undefined>;
  clock?: () => number;
  /** 'memory' (default) or a PostgreSQL URL. */
  database?: string;
  quotaPrefix?: string;
  /** Redis channel prefix of the market events (default: the quota prefix, i.e. this server alone). */
  eventPrefix?: string;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const env: Record<string, string | undefined> = { LOG_LEVEL: 'info', ...opts.env };
  if (opts.database && opts.database !== 'memory') env.DATABASE_URL = opts.database;
  const config = testConfig(env);
  const srv = await startServer(config, createLogger(config.logLevel, sink), {
    dataDir: 'memory',
    clock: opts.clock,
    quotaPrefix: opts.quotaPrefix ?? `mds:test:${randomUUID()}:`,
    eventPrefix: opts.eventPrefix,
  });
  return {
    ...srv,
    logs: () => chunks.join(''),
    async key(tier, userId = randomUUID()) {
      return (await srv.services.keys.create({ userId, tier, label: null })).key;
    },
    rest(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.key) headers.set('X-API-Key', init.key);
      return fetch(`${srv.url}${path}`, { ...init, headers });
    },
    async getJson(path, key) {
      const res = await fetch(`${srv.url}${path}`, { headers: { 'X-API-Key': key } });
      return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
    },
    gql(query, variables, key) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (key) headers['X-API-Key'] = key;
      return fetch(`${srv.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    },
  };
}

/** A settable clock for quota tests: no sleeping. */
export function manualClock(startMs: number): { now: () => number; set(ms: number): void; advance(ms: number): void } {
  let t = startMs;
  return {
    now: () => t,
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}
