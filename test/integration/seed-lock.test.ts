/**
 * Replicas starting together on a fresh PostgreSQL database seed the demo data once: the
 * seeding runs under an advisory lock and the late starter finds the database seeded.
 */
import { openServices, type Services } from '../../src/composition';
import { testConfig } from '../helpers/config';
import { describeWith } from '../helpers/requirements';
import { freshPostgres } from '../helpers/databases';

describeWith('DATABASE_URL', 'demo seeding by two instances at once', (url) => {
  let db: { url: string; drop(): Promise<void> };
  let a: Services;
  let b: Services;
  beforeAll(async () => {
    db = await freshPostgres(url);
    a = await openServices(testConfig({ DATABASE_URL: db.url }));
    b = await openServices(testConfig({ DATABASE_URL: db.url }));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('when two instances seed an empty database at the same time, then one seeds and the other skips', async () => {
    const now = Date.now();
    const [ra, rb] = await Promise.all([a.seeder.seedIfEmpty(now), b.seeder.seedIfEmpty(now)]);
    expect([ra, rb].filter((r) => r !== null)).toHaveLength(1);
    const seeded = (ra ?? rb)!;
    const [{ n }] = await a.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM candles WHERE timeframe = '1m'");
    expect(n).toBe(seeded.candles1m);
    expect(await a.seeder.seedIfEmpty(now)).toBeNull();
  }, 180_000);
});
