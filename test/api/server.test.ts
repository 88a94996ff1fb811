/**
 * The server as users run it: started in-process on port 0, spoken to over real HTTP.
 */
import { ConfigError, loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startServer, type RunningServer } from '../../src/server';
import { testConfig } from '../helpers/config';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGateway } from '../helpers/processes';

describe('server on the embedded default', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    // Unseeded: the seed at start is asserted on operability.test's seeded server (GET /metrics).
    srv = await startServer(testConfig(), createLogger('silent'), { dataDir: 'memory' });
  }, 120_000);
  afterAll(() => srv?.stop());

  it('when /health is asked, then 200 with the database check and a version, and an X-Request-Id', async () => {
    const res = await fetch(`${srv.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({
      status: 'ok',
      checks: {
        database: expect.objectContaining({ status: 'ok', kind: 'pglite' }),
        rate_limit_store: expect.objectContaining({ status: 'ok', kind: 'memory' }),
      },
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });

  it('when an unknown path is asked, then 404 in the error envelope', async () => {
    const res = await fetch(`${srv.url}/nope`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body).toEqual({ error: 'NOT_FOUND', message: expect.any(String), request_id: res.headers.get('x-request-id') });
  });
});

describe('server when the database is gone', () => {
  it('when the database stops answering, then /health is 503 with the failing check', async () => {
    const srv = await startServer(testConfig(), createLogger('silent'), { dataDir: 'memory' });
    try {
      await srv.services.store.db.close();
      const res = await fetch(`${srv.url}/health`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; checks: { database: { status: string } } };
      expect(body.status).toBe('unavailable');
      expect(body.checks.database.status).toBe('unavailable');
    } finally {
      await srv.stop();
    }
  });
});

describe('the server process', () => {
  it('when it gets SIGTERM, then it drains, closes its pools and exits 0', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-proc-'));
    const gw = await startGateway({ DATA_DIR: path.join(dir, 'data') });
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    expect(await gw.stop()).toBe(0);
  }, 60_000);
});

describe('configuration', () => {
  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ SEED_DEMO: 'maybe' }, /SEED_DEMO/],
    [{ EXCHANGE_PERP: 'same', EXCHANGE_SPOT: 'same' }, /EXCHANGE_SPOT/],
    [{ QUALITY_INTERVAL: 'soon' }, /QUALITY_INTERVAL/],
    [{ TIER_LIMITS: '{nope' }, /TIER_LIMITS/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('when %j, then start-up stops naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('when a variable is set but empty, then it counts as unset', () => {
    expect(loadConfig({ PORT: '', HOST: ' ', SEED_DEMO: '', DATABASE_URL: '' })).toMatchObject({ port: 3000, host: '0.0.0.0', seedDemo: true, databaseUrl: undefined });
  });

  it('when nothing is set, then the embedded defaults apply', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, databaseUrl: undefined, seedDemo: true, exchanges: { served: ['perp', 'spot', 'binance-perp', 'bybit-perp'], names: { perp: 'perp', spot: 'spot', 'binance-perp': 'binance-perp', 'bybit-perp': 'bybit-perp' } } });
    expect(c.qualityIntervalMs).toBe(300_000);
  });
});
