/**
 * Prometheus metrics (prom-client), one registry per service instance (tests run several in one
 * process): HTTP requests by route and status, quota rejections, dependency failures, job runs,
 * ingestion (venue requests, weight, reconnects, rows, lag), subscriptions, read replicas, the
 * memory of small pages and data freshness. Current state (lags, sockets, replicas, freshness) is read at scrape time; the
 * database reads are bounded, so a slow or absent database leaves those gauges empty and counts a
 * scrape error instead of hanging /metrics.
 */
import client from 'prom-client';
import type { RouterStats } from '../../db/replica-router';
import type { AppError } from '../../domain/errors';
import type { VenueObserver } from '../../venues/venue';
import type { SeriesLag } from '../ingest/ingest-status';
import type { StoredCandles } from '../ingest/live-writer';

export type Dependency = 'database' | 'redis' | 'internal';

/** What /metrics reads from storage at scrape time, each query given up after `timeoutMs`. */
export interface FreshnessReader {
  (timeoutMs: number): Promise<{
    /** Per timeframe: the newest feature row of any series, and the least recent of the series' newest (Unix s). */
    features: Array<{ timeframe: string; latest: number | null; stalest: number | null }>;
    /** The newest and oldest quality computation (Unix s). */
    quality: { newest: number | null; oldest: number | null };
  }>;
}

const SCRAPE_QUERY_TIMEOUT_MS = 1_000;

export class Metrics implements VenueObserver {
  readonly registry = new client.Registry();
  readonly contentType = this.registry.contentType;

  private readonly requests = new client.Counter({
    name: 'mds_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new client.Histogram({
    name: 'mds_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly quotaRejections = new client.Counter({
    name: 'mds_quota_rejections_total',
    help: 'Requests refused with 429 by tier (scope: request quota or a GraphQL field limit).',
    labelNames: ['tier', 'scope'] as const,
    registers: [this.registry],
  });
  private readonly dependencyErrors = new client.Counter({
    name: 'mds_dependency_errors_total',
    help: 'Requests that failed on a dependency (database, redis) or unexpectedly (internal).',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });
  private readonly jobRuns = new client.Counter({
    name: 'mds_job_runs_total',
    help: 'Background job runs by job and outcome (ok, skipped: another instance ran it, error).',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly jobDuration = new client.Histogram({
    name: 'mds_job_duration_seconds',
    help: 'Background job duration.',
    labelNames: ['job'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly responseCacheLive = new client.Gauge({
    name: 'mds_response_cache_listening',
    help: 'Whether small pages may be served from memory (1): the watermarks\' moves are heard (RESPONSE_CACHE_MB).',
    registers: [this.registry],
  });
  private readonly responseCacheBytes = new client.Gauge({
    name: 'mds_response_cache_bytes',
    help: 'Bytes of small pages kept in memory.',
    registers: [this.registry],
  });
  private readonly responseCacheHits = new client.Counter({
    name: 'mds_response_cache_hits_total',
    help: 'Data requests answered from memory (200 or 304) without a statement.',
    registers: [this.registry],
  });
  private responseCacheCounted = 0;
  private readResponseCache: () => { live: boolean; bytes: number; hits: number } = () => ({ live: false, bytes: 0, hits: 0 });
  private readonly scrapeErrors = new client.Counter({
    name: 'mds_metrics_scrape_errors_total',
    help: 'Freshness queries that failed or timed out during a scrape.',
    registers: [this.registry],
  });

  private readonly featuresLatest = new client.Gauge({
    name: 'mds_features_latest_timestamp_seconds',
    help: 'Open time of the newest pre-computed feature row, by timeframe (alert on time() minus this).',
    labelNames: ['timeframe'] as const,
    registers: [this.registry],
  });
  private readonly featuresStalest = new client.Gauge({
    name: 'mds_features_stalest_timestamp_seconds',
    help: 'The least recent of the series\' newest feature rows, by timeframe: one stalled series shows here.',
    labelNames: ['timeframe'] as const,
    registers: [this.registry],
  });
  private readonly qualityComputed = new client.Gauge({
    name: 'mds_quality_computed_timestamp_seconds',
    help: 'When the newest and the oldest Data Quality Score records were computed (Unix seconds).',
    labelNames: ['which'] as const,
    registers: [this.registry],
  });

  private readonly venueRequests = new client.Counter({
    name: 'mds_venue_requests_total',
    help: 'REST requests to the venues by venue and HTTP status (error: no answer).',
    labelNames: ['venue', 'status'] as const,
    registers: [this.registry],
  });
  private readonly venueWeight = new client.Counter({
    name: 'mds_venue_weight_used_total',
    help: "Request weight spent against each venue's limit.",
    labelNames: ['venue'] as const,
    registers: [this.registry],
  });
  private readonly venueReconnects = new client.Counter({
    name: 'mds_ingest_reconnects_total',
    help: 'Venue socket reconnects (after a drop, a refused handshake or silence).',
    labelNames: ['venue'] as const,
    registers: [this.registry],
  });
  private readonly venueRejected = new client.Counter({
    name: 'mds_ingest_rejected_rows_total',
    help: 'Venue rows rejected and never written, by venue and kind (schema, time, values, range, duplicate).',
    labelNames: ['venue', 'kind'] as const,
    registers: [this.registry],
  });
  private readonly rowsStored = new client.Counter({
    name: 'mds_ingest_rows_stored_total',
    help: 'Candles stored by ingestion and the demo feed, by series and timeframe.',
    labelNames: ['series_id', 'timeframe'] as const,
    registers: [this.registry],
  });
  private readonly ingestLag = new client.Gauge({
    name: 'mds_ingest_lag_seconds',
    help: 'Seconds from the close of the newest stored 1m candle to now, per ingested series.',
    labelNames: ['exchange', 'symbol'] as const,
    registers: [this.registry],
  });
  private readLags: () => SeriesLag[] = () => [];
  private readonly replicaAvailable = new client.Gauge({
    name: 'mds_replica_available',
    help: 'Per read replica: 1 while it is in the rotation (reachable, a standby, within REPLICA_MAX_LAG; while catching up with an event this process saw, its reads wait on the primary), else 0.',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });
  private readonly replicaLag = new client.Gauge({
    name: 'mds_replica_lag_seconds',
    help: "Per read replica: how long before the primary's newest sampled WAL position the newest one it has replayed was sampled.",
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });
  private readonly replicaReads = new client.Counter({
    name: 'mds_replica_reads_total',
    help: 'Statements of the data reads by where they ran: a replica (its name), or primary (no replica qualified, or one failed and the statement ran again there).',
    labelNames: ['target'] as const,
    registers: [this.registry],
  });
  private readonly replicaFallbacks = new client.Counter({
    name: 'mds_replica_fallbacks_total',
    help: 'Statements that failed on a read replica (connection lost, timeout, cancelled by replay) and ran again on the primary.',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });
  private readReplicas: () => RouterStats | null = () => null;
  /** What the counters above last reported (the router counts in plain numbers; a scrape adds the difference). */
  private readonly replicaCounted = new Map<string, number>();
  private readonly wsSockets = new client.Gauge({
    name: 'mds_graphql_ws_sockets',
    help: 'GraphQL WebSocket connections open on this instance (authenticated).',
    registers: [this.registry],
  });
  private readonly subscriptions = new client.Gauge({
    name: 'mds_graphql_subscriptions',
    help: 'GraphQL subscriptions open on this instance.',
    registers: [this.registry],
  });
  private readonly eventsPublished = new client.Counter({
    name: 'mds_events_published_total',
    help: 'Market events this process published after a commit, by type (candle, funding, quality).',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  private readonly eventsDelivered = new client.Counter({
    name: 'mds_events_delivered_total',
    help: 'Values handed to subscriptions on this instance (one event reaches every subscriber of its topic).',
    registers: [this.registry],
  });
  private readSubscriptions: () => { sockets: number; subscriptions: number } = () => ({ sockets: 0, subscriptions: 0 });

  constructor(private readonly readFreshness?: FreshnessReader) {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'mds_' });
  }

  /** Read the freshness gauges from storage, within SCRAPE_QUERY_TIMEOUT_MS. */
  private async refreshFreshness(): Promise<void> {
    this.featuresLatest.reset();
    this.featuresStalest.reset();
    this.qualityComputed.reset();
    if (!this.readFreshness) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      const { features, quality } = await Promise.race([
        // Bounded on the server too, so a silent database does not keep pool connections.
        this.readFreshness(SCRAPE_QUERY_TIMEOUT_MS),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), SCRAPE_QUERY_TIMEOUT_MS);
        }),
      ]);
      for (const r of features) {
        if (r.latest !== null) this.featuresLatest.set({ timeframe: r.timeframe }, r.latest);
        if (r.stalest !== null) this.featuresStalest.set({ timeframe: r.timeframe }, r.stalest);
      }
      for (const which of ['newest', 'oldest'] as const) {
        const v = quality[which];
        if (v !== null && v !== undefined) this.qualityComputed.set({ which }, v);
      }
    } catch {
      this.scrapeErrors.inc();
    } finally {
      clearTimeout(timer);
    }
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  /** Count what a request's error says about quotas and dependencies (once per request and kind). */
  errorSeen(err: AppError, tier: string | undefined, scope: 'request' | 'field'): void {
    if (err.code === 'RATE_LIMIT_EXCEEDED') this.quotaRejections.inc({ tier: tier ?? 'unknown', scope });
    else if (err.code === 'SERVICE_UNAVAILABLE') this.dependencyErrors.inc({ dependency: err.extras.dependency ?? 'internal' });
    else if (err.code === 'DATABASE_ERROR') this.dependencyErrors.inc({ dependency: 'internal' });
  }

  jobRun(job: string, outcome: 'ok' | 'skipped' | 'error', seconds: number): void {
    this.jobRuns.inc({ job, outcome });
    if (outcome !== 'skipped') this.jobDuration.observe({ job }, seconds);
  }

  // ---- ingestion (VenueObserver and the write path) --------------------------------------------

  request(venue: string, status: string): void {
    this.venueRequests.inc({ venue, status });
  }

  weight(venue: string, weight: number): void {
    this.venueWeight.inc({ venue }, weight);
  }

  reconnect(venue: string): void {
    this.venueReconnects.inc({ venue });
  }

  rejected(venue: string, kind: string): void {
    this.venueRejected.inc({ venue, kind });
  }

  stored(s: StoredCandles): void {
    this.rowsStored.inc({ series_id: String(s.seriesId), timeframe: s.timeframe }, s.rows);
  }

  // ---- subscriptions -----------------------------------------------------------------------------

  published(type: string): void {
    this.eventsPublished.inc({ type });
  }

  delivered(n: number): void {
    this.eventsDelivered.inc(n);
  }

  /** Where the open sockets and subscriptions are read at scrape time. */
  subscriptionCounts(read: () => { sockets: number; subscriptions: number }): void {
    this.readSubscriptions = read;
  }

  /** Where the per-series ingest lag is read at scrape time. */
  ingestLags(read: () => SeriesLag[]): void {
    this.readLags = read;
  }

  /** Where the memory of small pages is read at scrape time. */
  responseCacheStats(read: () => { live: boolean; bytes: number; hits: number }): void {
    this.readResponseCache = read;
  }

  /** Where the read replicas' state is read at scrape time. */
  replicaStats(read: () => RouterStats | null): void {
    this.readReplicas = read;
  }

  private refreshReplicas(): void {
    const stats = this.readReplicas();
    if (!stats) return;
    const add = (counter: client.Counter<string>, kind: string, label: Record<string, string>, total: number) => {
      const key = `${kind}|${Object.values(label).join('|')}`;
      const delta = total - (this.replicaCounted.get(key) ?? 0);
      if (delta > 0) counter.inc(label, delta);
      this.replicaCounted.set(key, total);
    };
    add(this.replicaReads, 'reads', { target: 'primary' }, stats.primaryReads);
    this.replicaLag.reset();
    for (const r of stats.replicas) {
      this.replicaAvailable.set({ replica: r.name }, r.state === 'serving' || r.state === 'catching_up' ? 1 : 0);
      if (r.lagSeconds !== null) this.replicaLag.set({ replica: r.name }, r.lagSeconds);
      add(this.replicaReads, 'reads', { target: r.name }, r.reads);
      add(this.replicaFallbacks, 'fallbacks', { replica: r.name }, r.fallbacks);
    }
  }

  async render(): Promise<string> {
    await this.refreshFreshness();
    this.refreshReplicas();
    this.ingestLag.reset();
    for (const l of this.readLags()) if (l.lagSeconds !== null) this.ingestLag.set({ exchange: l.exchange, symbol: l.symbol }, l.lagSeconds);
    const cache = this.readResponseCache();
    this.responseCacheLive.set(cache.live ? 1 : 0);
    this.responseCacheBytes.set(cache.bytes);
    if (cache.hits > this.responseCacheCounted) this.responseCacheHits.inc(cache.hits - this.responseCacheCounted);
    this.responseCacheCounted = cache.hits;
    const open = this.readSubscriptions();
    this.wsSockets.set(open.sockets);
    this.subscriptions.set(open.subscriptions);
    return this.registry.metrics();
  }
}
