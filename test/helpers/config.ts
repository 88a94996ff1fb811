import { loadConfig, type Config } from '../../src/config';

/**
 * A config for tests: quiet, no demo seeding unless asked, the spec's two exchanges (tests of a
 * further one name EXCHANGES), overrides applied. On a database server, the run's
 * DATABASE_ENGINE (a whole suite on Citus or TimescaleDB: docs/SCALING.md) unless overridden.
 */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  const engine = env.DATABASE_URL && process.env.DATABASE_ENGINE ? { DATABASE_ENGINE: process.env.DATABASE_ENGINE } : {};
  return loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false', PORT: '0', HOST: '127.0.0.1', EXCHANGES: 'perp,spot', ...engine, ...env });
}
