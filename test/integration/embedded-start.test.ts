/**
 * The embedded default's first start: a new DATA_DIR is filled from the build's template and
 * seeded in a child process, the server listens only once the data is in, and a failed seed
 * fails the start with its reason. The server runs as its own process (dist/).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../src/db/migrator';
import { openDatabase } from '../../src/db/open-database';
import { STAMP, TARBALL, TEMPLATE_DIR, copyTemplate, templateStamp, templateTarball } from '../../src/db/pglite-template';
import { seedsInChild } from '../../src/seed-process';
import { START_JS, startGateway, type GatewayProcess } from '../helpers/processes';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'mds-embedded-start-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('which start seeds in a child process', () => {
  const embedded = { databaseUrl: undefined, seedDemo: true };

  it('when DATA_DIR holds no database yet, then the seed runs in a child', () => {
    expect(seedsInChild(embedded, path.join(tmp, 'data'))).toBe(true);
  });

  it('when DATA_DIR holds a database, PostgreSQL is used, seeding is off or the database is in memory, then it does not', () => {
    writeFileSync(path.join(tmp, 'PG_VERSION'), '17');
    expect(seedsInChild(embedded, tmp)).toBe(false);
    expect(seedsInChild({ databaseUrl: 'postgres://x/y', seedDemo: true }, path.join(tmp, 'data'))).toBe(false);
    expect(seedsInChild({ databaseUrl: undefined, seedDemo: false }, path.join(tmp, 'data'))).toBe(false);
    expect(seedsInChild(embedded, 'memory')).toBe(false);
  });
});

describe('the template of a new DATA_DIR', () => {
  function template(stamp: string): string {
    const dir = path.join(tmp, 'template');
    mkdirSync(path.join(dir, 'base', '1'), { recursive: true });
    writeFileSync(path.join(dir, 'PG_VERSION'), '17');
    writeFileSync(path.join(dir, 'base', '1', 'PG_VERSION'), '17');
    writeFileSync(path.join(dir, STAMP), stamp);
    writeFileSync(path.join(dir, TARBALL), 'the same database as a tar');
    return dir;
  }

  it('when its stamp is this PGlite and these migrations, then a new DATA_DIR is filled from it, stamp and tar left out', async () => {
    const dir = template(await templateStamp());
    const data = path.join(tmp, 'data');
    mkdirSync(data);
    writeFileSync(path.join(data, '.mds.lock'), String(process.pid));
    expect(await copyTemplate(data, dir)).toBe(true);
    expect(readdirSync(data).sort()).toEqual(['.mds.lock', 'PG_VERSION', 'base']);
    expect(existsSync(path.join(data, 'base', '1', 'PG_VERSION'))).toBe(true);
  });

  it('when its stamp differs, or DATA_DIR already holds a database, then nothing is copied (nor loaded in memory)', async () => {
    const stale = template('{"pglite":"0.0.0","migrations":[]}');
    const data = path.join(tmp, 'data');
    mkdirSync(data);
    expect(await copyTemplate(data, stale)).toBe(false);
    expect(readdirSync(data)).toEqual([]);
    expect(await templateTarball(stale)).toBeNull();
    const current = template(await templateStamp());
    writeFileSync(path.join(data, 'PG_VERSION'), '17');
    expect(await copyTemplate(data, current)).toBe(false);
    expect(readdirSync(data)).toEqual(['PG_VERSION']);
  });
});

describe('a database in memory', () => {
  it("when the services open one, then it starts from the build's template: migrating finds nothing to apply", async () => {
    expect({ template: existsSync(path.join(TEMPLATE_DIR, TARBALL)) }).toEqual({ template: true }); // made by npm run build
    const db = await openDatabase({ dataDir: 'memory', fromTemplate: true });
    try {
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('when it is opened without the template, then it starts empty and migrating applies every migration', async () => {
    const db = await openDatabase({ dataDir: 'memory' });
    try {
      expect((await migrate(db)).length).toBeGreaterThan(5);
    } finally {
      await db.close();
    }
  });
});

describe('the first embedded start', () => {
  let gateway: GatewayProcess | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it('when DATA_DIR is new, then a child seeds it (begun by npm start before the server loads) and the server listens with the data in', async () => {
    const data = path.join(tmp, 'data');
    gateway = await startGateway({ DATA_DIR: data, SEED_DEMO: 'true', LOG_LEVEL: 'info' }, 300_000, START_JS);
    const out = gateway.output();
    const key = /shown once\): (\S+)/.exec(out)![1];
    // The first request after "listening": the demo data is already there.
    const start = new Date(Date.now() - 86_400_000).toISOString();
    const res = await fetch(`${gateway.url}/v1/ohlcv?exchange=spot&symbol=BTC-USDT&timeframe=1h&start=${start}&limit=3`, { headers: { 'X-API-Key': key } });
    const body = await res.text();
    expect(`${res.status} ${body.slice(0, 200)}`).toMatch(/^200 /);
    expect((JSON.parse(body) as { data: unknown[] }).data).toHaveLength(3);
    // Seeded once, by the child (its summary logged by the server before it listened).
    expect(out.match(/empty database: seeding demo data/g)).toHaveLength(1);
    expect(out.indexOf('"msg":"demo data seeded"')).toBeLessThan(out.indexOf('listening on'));
    expect(existsSync(path.join(data, 'PG_VERSION'))).toBe(true);
  }, 320_000);

  it.each([
    ['the server', undefined],
    ['npm start', START_JS],
  ])('when the seed process fails, then the start (%s) fails with its reason', async (_, script) => {
    const data = path.join(tmp, 'data');
    mkdirSync(data);
    // DATA_DIR held by a live process (this one): the child cannot take it.
    writeFileSync(path.join(data, '.mds.lock'), String(process.pid));
    await expect(startGateway({ DATA_DIR: data, SEED_DEMO: 'true' }, 60_000, script)).rejects.toThrow(
      new RegExp(`start-up failed: seeding the demo data failed: DATA_DIR .* is in use by process ${process.pid}`),
    );
  }, 90_000);
});
