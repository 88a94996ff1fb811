/**
 * Real databases for tests. PGlite (in memory) always; a PostgreSQL server when DATABASE_URL
 * is set, each test file in a database of its own created on that server. Without
 * DATABASE_URL the PostgreSQL cases skip with a visible reason, unless REQUIRE_SERVICES=1
 * (CI), where a missing service fails the run.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const REQUIRE_SERVICES = process.env.REQUIRE_SERVICES === '1';

export function serviceUrl(name: 'DATABASE_URL' | 'REDIS_URL'): string | undefined {
  const url = process.env[name];
  if (!url) {
    if (REQUIRE_SERVICES) throw new Error(`REQUIRE_SERVICES=1 but ${name} is not set`);
    console.warn(`[skip] ${name} is unset: tests that need it are skipped`);
  }
  return url || undefined;
}

/** `describe` when the service URL is set, otherwise a visibly skipped block. */
export function describeWith(name: 'DATABASE_URL' | 'REDIS_URL', title: string, fn: (url: string) => void): void {
  const url = serviceUrl(name);
  if (url) describe(title, () => fn(url));
  else describe.skip(`${title} (skipped: ${name} unset)`, () => it('needs a service', () => undefined));
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Create an empty database on the server of `serverUrl`; returns its URL and a dropper. */
export async function freshPostgres(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `mds_t_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(serverUrl, name),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
