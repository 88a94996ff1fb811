/**
 * The scheduled quality job runs on one instance at a time when several share a database.
 */
import { openServices, type Services } from '../../src/composition';
import { LOCK_KEYS } from '../../src/db/locks.repository';
import { testConfig } from '../helpers/config';
import { describeWith } from '../helpers/requirements';
import { freshPostgres, type FreshDatabase } from '../helpers/databases';
import pg from 'pg';

describeWith('DATABASE_URL', 'quality job lock on PostgreSQL', (url) => {
  let db: FreshDatabase;
  let s: Services;
  beforeAll(async () => {
    db = await freshPostgres(url);
    s = await openServices(testConfig({ DATABASE_URL: db.url }));
  });
  afterAll(async () => {
    await s?.close();
    await db?.drop();
  });

  it('when another instance holds the lock, then the run is skipped; once released, it runs', async () => {
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [LOCK_KEYS.qualityJob]);
      expect(await s.quality.runExclusive(Date.now())).toBeNull();
      await other.query('SELECT pg_advisory_unlock($1)', [LOCK_KEYS.qualityJob]);
      expect(await s.quality.runExclusive(Date.now())).toBe(0);
    } finally {
      await other.end();
    }
  });
});
