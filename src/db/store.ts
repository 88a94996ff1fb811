/**
 * The repositories over one database, and transactions across them. Services ask the store
 * for what they read and write; SQL and Prisma live under src/db only.
 */
import { CandlesRepository } from './candles.repository';
import type { Database, SqlSession } from './database';
import { FeaturesRepository } from './features.repository';
import { FundingRepository } from './funding.repository';
import { IngestRepository } from './ingest.repository';
import { KeysRepository } from './keys.repository';
import { Locks, lockSymbolInTransaction } from './locks.repository';
import { MultiAssetRepository } from './multi-asset.repository';
import { QualityRepository } from './quality.repository';
import { SeriesRepository } from './series.repository';

/** The repositories whose writes can share a transaction. */
export interface Repositories {
  series: SeriesRepository;
  candles: CandlesRepository;
  funding: FundingRepository;
  features: FeaturesRepository;
}

export class Store implements Repositories {
  readonly series: SeriesRepository;
  readonly candles: CandlesRepository;
  readonly funding: FundingRepository;
  readonly features: FeaturesRepository;
  readonly multiAsset: MultiAssetRepository;
  readonly quality: QualityRepository;
  readonly keys: KeysRepository;
  readonly locks: Locks;
  readonly ingest: IngestRepository;

  constructor(readonly db: Database) {
    this.series = new SeriesRepository(db);
    this.candles = new CandlesRepository(db);
    this.funding = new FundingRepository(db);
    this.features = new FeaturesRepository(db);
    this.multiAsset = new MultiAssetRepository(db);
    this.quality = new QualityRepository(db.prisma, db);
    this.keys = new KeysRepository(db.prisma);
    this.locks = new Locks(db);
    this.ingest = new IngestRepository(db);
  }

  get kind(): Database['kind'] {
    return this.db.kind;
  }

  /** Run `fn` in one transaction on one connection; rolled back if it throws. */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T> {
    return this.db.transaction((s) => fn(this.on(s)));
  }

  /**
   * `transaction` holding the symbol's lock (the one `locks.withSymbolLock` holds) from its
   * first statement to its end: one connection and four round trips fewer than both.
   */
  symbolTransaction<T>(symbol: string, fn: (tx: Repositories) => Promise<T>): Promise<T> {
    return this.db.transaction(async (s) => {
      await lockSymbolInTransaction(s, symbol);
      return fn(this.on(s));
    });
  }

  /** Run `fn` on one dedicated connection without a transaction (and without a statement timeout). */
  session<T>(fn: (s: Repositories) => Promise<T>): Promise<T> {
    return this.db.session((s) => fn(this.on(s)));
  }

  private on(s: SqlSession): Repositories {
    return { series: this.series.on(s), candles: new CandlesRepository(s), funding: new FundingRepository(s), features: new FeaturesRepository(s) };
  }

  /** A trivial statement, given up after `timeoutMs` (the health check). */
  async ping(timeoutMs: number): Promise<void> {
    await this.db.query('SELECT 1', [], { timeoutMs });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
