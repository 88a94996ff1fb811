/**
 * Runs a suite once per storage kind: embedded PGlite always, PostgreSQL server when
 * DATABASE_URL is set (a fresh database per suite). Both get the real migrations.
 */
import { testConfig } from './config';
import { openServices, type Services } from '../../src/composition';
import { freshPostgres, serviceUrl } from './services';

export interface StorageCase {
  name: 'pglite' | 'postgres';
  open(): Promise<Services>;
  /** Drop what open() created (the per-suite database). */
  cleanup(): Promise<void>;
}

export function storageCases(): StorageCase[] {
  const cases: StorageCase[] = [
    {
      name: 'pglite',
      open: () => openServices(testConfig(), { dataDir: 'memory' }),
      cleanup: async () => undefined,
    },
  ];
  const server = serviceUrl('DATABASE_URL');
  if (server) {
    const drops: Array<() => Promise<void>> = [];
    cases.push({
      name: 'postgres',
      async open() {
        const db = await freshPostgres(server);
        drops.push(db.drop);
        return openServices(testConfig({ DATABASE_URL: db.url }));
      },
      cleanup: async () => {
        await Promise.all(drops.splice(0).map((d) => d()));
      },
    });
  }
  return cases;
}

/** Open the case's services before the suite and close them (and its database) after. */
export function useServices(kase: StorageCase): () => Services {
  let s: Services | undefined;
  beforeAll(async () => {
    s = await kase.open();
  });
  afterAll(async () => {
    await s?.close();
    await kase.cleanup();
  });
  return () => s!;
}
