import { loadConfig, type Config } from '../../src/config';

/**
 * A config for tests: quiet, no demo seeding unless asked, the spec's two exchanges (tests of a
 * further one name EXCHANGES), overrides applied.
 */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false', PORT: '0', HOST: '127.0.0.1', EXCHANGES: 'perp,spot', ...env });
}
