/**
 * The services (no HTTP server) over each database of `databases()`: embedded PGlite in memory
 * always, and a fresh database on the PostgreSQL server when DATABASE_URL is set. Both get the
 * real migrations.
 */
import { openServices, type Services } from '../../src/composition';
import { testConfig } from './config';
import { databases } from './services';

export interface StorageCase {
  name: 'pglite' | 'postgres';
  open(): Promise<Services>;
  /** Drop what open() created (the per-suite database). */
  cleanup(): Promise<void>;
}

export function storageCases(): StorageCase[] {
  return databases().map(([name, make]) => {
    const drops: Array<() => Promise<void>> = [];
    return {
      name,
      async open() {
        const db = await make();
        if (!db) return openServices(testConfig(), { dataDir: 'memory' });
        drops.push(db.drop);
        return openServices(testConfig({ DATABASE_URL: db.url }));
      },
      cleanup: async () => {
        await Promise.all(drops.splice(0).map((d) => d()));
      },
    };
  });
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
