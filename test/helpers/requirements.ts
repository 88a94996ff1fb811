/**
 * What a test needs from the machine, and the one way a test skips without it. A PostgreSQL
 * server (DATABASE_URL), Redis (REDIS_URL), chromium (CHROMIUM_PATH, default /usr/bin/chromium),
 * PostgreSQL's server binaries (POSTGRES_BIN, default Debian's newest), `redis-server` and
 * `pg_autoctl` on PATH are used when present; missing, the tests that need them skip with a
 * visible `[skip]` line, unless REQUIRE_SERVICES=1 (CI), where a missing one fails the run.
 */
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const REQUIRE_SERVICES = process.env.REQUIRE_SERVICES === '1';

export type Requirement = 'DATABASE_URL' | 'REDIS_URL' | 'CHROMIUM' | 'POSTGRES_BIN' | 'REDIS_SERVER' | 'PG_AUTOCTL';

/** The directory of initdb, pg_ctl and pg_basebackup: POSTGRES_BIN, else Debian's newest. */
function postgresBin(): string | undefined {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((b) => existsSync(path.join(dir, b)));
  if (process.env.POSTGRES_BIN) return has(process.env.POSTGRES_BIN) ? process.env.POSTGRES_BIN : undefined;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => path.join(root, v, 'bin')).find(has);
}

/** An executable called `name` in a directory of PATH, or undefined. */
function onPath(name: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.map((d) => path.join(d, name)).find((f) => {
    try {
      accessSync(f, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const find: Record<Requirement, () => string | undefined> = {
  DATABASE_URL: () => process.env.DATABASE_URL || undefined,
  REDIS_URL: () => process.env.REDIS_URL || undefined,
  CHROMIUM: () => {
    const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
    return existsSync(path) ? path : undefined;
  },
  POSTGRES_BIN: postgresBin,
  REDIS_SERVER: () => onPath('redis-server'),
  PG_AUTOCTL: () => onPath('pg_autoctl'),
};

const how: Record<Requirement, string> = {
  DATABASE_URL: 'DATABASE_URL is unset',
  REDIS_URL: 'REDIS_URL is unset',
  CHROMIUM: `no chromium at ${process.env.CHROMIUM_PATH || '/usr/bin/chromium'} (apt-get install chromium, or set CHROMIUM_PATH)`,
  PG_AUTOCTL: 'no pg_autoctl on PATH (apt-get install postgresql-15-auto-failover)',
  POSTGRES_BIN: `no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) in ${process.env.POSTGRES_BIN || '/usr/lib/postgresql/<version>/bin'} (apt-get install postgresql, or set POSTGRES_BIN)`,
  REDIS_SERVER: 'no redis-server on PATH (apt-get install redis-server; its sentinel mode is redis-server --sentinel)',
};

/** The service's URL (or chromium's path), or undefined with a `[skip]` warning; REQUIRE_SERVICES=1 turns the warning into a failure. */
export function serviceUrl(name: Requirement): string | undefined {
  const value = find[name]();
  if (value === undefined) {
    if (REQUIRE_SERVICES) throw new Error(`REQUIRE_SERVICES=1 but ${how[name]}`);
    console.warn(`[skip] ${how[name]}: tests that need it are skipped`);
  }
  return value;
}

/** `describe` when every requirement is met (its values handed to `fn` in order), otherwise a visibly skipped block. */
export function describeWith(needs: Requirement | Requirement[], title: string, fn: (...values: string[]) => void): void {
  const list = Array.isArray(needs) ? needs : [needs];
  const values = list.map(serviceUrl);
  if (values.every((v) => v !== undefined)) describe(title, () => fn(...(values as string[])));
  else describe.skip(`${title} (skipped: ${list.filter((_, i) => values[i] === undefined).join(', ')} missing)`, () => it('needs a service', () => undefined));
}


/** The pg_config of an engine built by hand (docs/SCALING.md, Getting the engines). */
export type EngineBuild = 'TIMESCALEDB_PG_CONFIG' | 'CITUS_PG_CONFIG';

/**
 * `describe` when `name` points at an engine build's pg_config, else a visibly skipped block,
 * even under REQUIRE_SERVICES=1: CI cannot fetch and build the engines' sources.
 */
export function describeWithEngine(name: EngineBuild, title: string, fn: (pgConfig: string) => void): void {
  const value = process.env[name];
  const usable = value !== undefined && existsSync(value);
  if (usable) return describe(title, () => fn(value));
  const why = value === undefined ? `${name} is unset` : `${name}=${value} does not exist`;
  console.warn(`[skip] ${why}: the ${title} tests are skipped (docs/SCALING.md builds the engine)`);
  describe.skip(`${title} (skipped: ${why})`, () => it('needs an engine build', () => undefined));
}
