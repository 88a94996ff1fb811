/**
 * The repositories over one database, and transactions across them. Services ask the store
 * for what they read and write; SQL and Prisma live under src/db only. `routed` are the
 * repositories the API's data reads use: the same ones, or with read replicas the same
 * repositories over the replica-routing session (replica-router.ts).
 */
import { CandlesRepository } from './candles.repository';
import type { Database, SqlSession } from './database';
import type { DatabaseEngine } from './engine-layout';
import { DerivativesRepository } from './derivatives.repository';
import { FeaturesRepository } from './features.repository';
import { FundingRepository } from './funding.repository';
import { IngestRepository } from './ingest.repository';
import { KeysRepository } from './keys.repository';
import { Locks, lockSeriesInTransaction, lockSymbolInTransaction } from './locks.repository';
import { MultiAssetRepository } from './multi-asset.repository';
import { Partitions } from './partitions';
import { QualityRepository } from './quality.repository';
import type { ReplicaRouter, RouterStats } from './replica-router';
import { SeriesRepository } from './series.repository';
import { WatermarksRepository, followWatermarks, type WatermarkMove } from './watermarks.repository';

/** The repositories whose writes can share a transaction. */
export interface Repositories {
  series: SeriesRepository;
  candles: CandlesRepository;
  funding: FundingRepository;
  features: FeaturesRepository;
  derivatives: DerivativesRepository;
}

/**
 * The repositories of the API's data reads (candles, funding, features, derivatives, multi-asset,
 * quality, markets and their coverage and ingest status). Never writes, key lookups or jobs.
 */
export interface RoutedRepositories extends Repositories {
  multiAsset: MultiAssetRepository;
  quality: Pick<QualityRepository, 'ofSeries'>;
  ingest: Pick<IngestRepository, 'status'>;
  watermarks: Pick<WatermarksRepository, 'read'>;
}

export class Store implements RoutedRepositories {
  readonly series: SeriesRepository;
  readonly candles: CandlesRepository;
  readonly funding: FundingRepository;
  readonly features: FeaturesRepository;
  readonly derivatives: DerivativesRepository;
  readonly multiAsset: MultiAssetRepository;
  readonly quality: QualityRepository;
  readonly keys: KeysRepository;
  readonly locks: Locks;
  readonly ingest: IngestRepository;
  readonly watermarks: WatermarksRepository;
  /** The data reads: on replicas when the store has them, else these very repositories. */
  readonly routed: RoutedRepositories;
  /** The time partitions of candles, features and derivatives: created ahead of writes, dropped by retention. */
  readonly partitions: Partitions;

  constructor(
    readonly db: Database,
    private readonly replicas?: ReplicaRouter,
    /** DATABASE_ENGINE: the statement forms the repositories use. */
    private readonly engine: DatabaseEngine = 'postgres',
  ) {
    this.partitions = new Partitions(db);
    this.series = new SeriesRepository(db);
    this.candles = new CandlesRepository(db, this.partitions.on(db), engine);
    this.funding = new FundingRepository(db, engine);
    this.features = new FeaturesRepository(db, this.partitions.on(db), engine);
    this.derivatives = new DerivativesRepository(db, this.partitions.on(db), engine);
    this.multiAsset = new MultiAssetRepository(db, engine);
    this.quality = new QualityRepository(db);
    this.keys = new KeysRepository(db.prisma);
    this.locks = new Locks(db);
    this.ingest = new IngestRepository(db);
    this.watermarks = new WatermarksRepository(db);
    this.routed = replicas ? this.routedOn(replicas.session) : this;
  }

  private routedOn(s: SqlSession): RoutedRepositories {
    return {
      series: this.series.on(s),
      candles: new CandlesRepository(s, undefined, this.engine),
      funding: new FundingRepository(s, this.engine),
      features: new FeaturesRepository(s, undefined, this.engine),
      derivatives: new DerivativesRepository(s, undefined, this.engine),
      multiAsset: new MultiAssetRepository(s, this.engine),
      quality: new QualityRepository(s),
      ingest: new IngestRepository(s),
      watermarks: new WatermarksRepository(s),
    };
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

  /**
   * `transaction` holding one series' lock and its symbol's lock shared: for writes that read
   * only that series (lockSeriesInTransaction).
   */
  seriesTransaction<T>(symbol: string, seriesId: number, fn: (tx: Repositories) => Promise<T>): Promise<T> {
    return this.db.transaction(async (s) => {
      await lockSeriesInTransaction(s, symbol, seriesId);
      return fn(this.on(s));
    });
  }

  /** Run `fn` on one dedicated connection without a transaction (and without a statement timeout). */
  session<T>(fn: (s: Repositories) => Promise<T>): Promise<T> {
    return this.db.session((s) => fn(this.on(s)));
  }

  private on(s: SqlSession): Repositories {
    const partitions = this.partitions.on(s);
    return {
      series: this.series.on(s),
      candles: new CandlesRepository(s, partitions, this.engine),
      funding: new FundingRepository(s, this.engine),
      features: new FeaturesRepository(s, partitions, this.engine),
      derivatives: new DerivativesRepository(s, partitions, this.engine),
    };
  }

  /**
   * Planner statistics of the bulk tables, their partitions included (after seeding: PGlite
   * never analyzes, and a partitioned table's own statistics, which join estimates use, are
   * never gathered by autovacuum). Its cost grows with the data: not for large databases.
   * Statistics of the key columns only (and `derived`): no condition names a value column,
   * and the value columns' histograms of NUMERIC cost most of an ANALYZE. A tenth of the
   * default sample: the keys' few values and time ranges need no finer histogram, and the
   * sample's reads were most of the first start's ANALYZE.
   */
  async analyze(): Promise<void> {
    await this.db.session((s) =>
      s.exec(
        `SET LOCAL default_statistics_target = 10;
         ANALYZE candles (series_id, timeframe, time, derived), features (series_id, timeframe, time), funding_rates, derivatives (series_id, timeframe, time)`,
      ),
    );
  }

  /** Follow the watermarks' moves as they commit (followWatermarks, on the primary). Returns the stop. */
  followWatermarks(onMove: (move: WatermarkMove) => void, onListening: (listening: boolean) => void): Promise<() => Promise<void>> {
    return followWatermarks(this.db, onMove, onListening);
  }

  /** A trivial statement, given up after `timeoutMs` (the health check). */
  async ping(timeoutMs: number): Promise<void> {
    await this.db.query('SELECT 1', [], { timeoutMs });
  }

  /**
   * The primary's WAL position now (PostgreSQL; null on PGlite): read after a commit, at or past
   * its commit record. The insert position, not the written one, which with
   * synchronous_commit=off can still be short of a commit already visible.
   */
  async walPosition(): Promise<string | null> {
    if (this.db.kind !== 'postgres') return null;
    const [r] = await this.db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    return r.lsn;
  }

  /** A commit position published or heard (an event's): the data reads stay on the primary until the replicas replay it. */
  readAfter(lsn: string | null | undefined): void {
    this.replicas?.saw(lsn);
  }

  /** The replicas' state for /health and /metrics (null: no replicas configured). */
  replicaStats(): RouterStats | null {
    return this.replicas?.stats() ?? null;
  }

  async close(): Promise<void> {
    await this.replicas?.close();
    await this.db.close();
  }
}
