/**
 * Data Quality Score: the job that scores every series and timeframe (domain/quality.ts) and
 * stores the record with computed_at, and the read behind GET /v1/quality and GraphQL
 * `market.quality`. The job runs after imports, from `mds compute`, and on a schedule in the
 * server (jobs/quality.job.ts), where an advisory lock lets one instance at a time run it.
 */
import type { CandlesRepository } from '../../db/candles.repository';
import type { IngestRepository } from '../../db/ingest.repository';
import type { QualityRepository } from '../../db/quality.repository';
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import type { Locks } from '../../db/locks.repository';
import type { RoutedRepositories } from '../../db/store';
import { AppError } from '../../domain/errors';
import type { QualityRequest } from '../../domain/market';
import type { RawParams } from '../../domain/params/param';
import type { MarketEndpoints } from '../../domain/params/market-endpoints';
import { QUALITY_WINDOW_MS, computeQuality, qualityRecord, type QualityRecord } from '../../domain/quality';
import { CANDLE_TIMEFRAMES, lastClosedOpen, type CandleTimeframe } from '../../domain/timeframe';
import type { Exchanges } from '../../domain/exchanges';
import type { Principal } from '../access/principal';
import type { TierPolicy } from '../access/tier-policy';

export interface QualityDeps {
  endpoint: MarketEndpoints['quality'];
  exchanges: Exchanges;
  series: SeriesRepository;
  candles: CandlesRepository;
  quality: QualityRepository;
  /** Known venue gaps: slots the venue does not have count as missing even before the first candle. */
  ingest: Pick<IngestRepository, 'firstGap'>;
  locks: Locks;
  /** Where the read (GET /v1/quality, GraphQL `quality`) looks: the read replicas when there are any. The job reads and writes the primary. */
  routed: Pick<RoutedRepositories, 'series' | 'quality'>;
  tiers: TierPolicy;
  clock: () => number;
  /** Told a series' records after a run changed one of them (GraphQL `qualityChanged`). */
  onChanged?: (seriesId: number, records: QualityRecord[]) => void;
}

/** A series' records as served, in timeframe order, without when they were computed: what a change is. */
function scoresOf(records: readonly QualityRecord[]): string {
  return JSON.stringify([...records].sort((a, b) => a.timeframe.localeCompare(b.timeframe)).map(({ computedAt: _at, ...r }) => r));
}

export class QualityService {
  constructor(private readonly deps: QualityDeps) {}

  // ---- the job -------------------------------------------------------------------------------

  /**
   * Score one series at every timeframe it has; returns the number of records written. `bases`:
   * the mean bases a run over every series has read (a pair's two series share theirs).
   */
  async computeSeries(seriesId: number, nowMs: number, bases: Map<string, Promise<number | null>> = new Map()): Promise<number> {
    const { series, candles, quality, exchanges } = this.deps;
    const market = await series.get(seriesId);
    // A series of an exchange no longer served (EXCHANGES) is not scored.
    if (!market || !exchanges.get(market.exchange)) return 0;
    const basis = exchanges.basisOf(market.exchange);
    const pairId = basis === null ? undefined : await series.idOf({ exchange: basis, symbol: market.symbol });
    const [perpId, spotId] = exchanges.isPerpetual(market.exchange) ? [seriesId, pairId] : [pairId, seriesId];
    const windowStart = new Date(nowMs - QUALITY_WINDOW_MS);
    const before = this.deps.onChanged ? await this.rendered(seriesId) : [];
    let n = 0;
    for (const tf of CANDLE_TIMEFRAMES) {
      // Closed candles only, as everywhere they are served.
      const closed = new Date(lastClosedOpen(nowMs, tf));
      const span = await candles.openSpan(seriesId, tf, closed);
      if (span.first === null) continue;
      const closes = await candles.closes(seriesId, tf, windowStart, closed);
      const meanBasis = pairId === undefined ? null : await this.meanBasis(bases, perpId!, spotId!, tf, windowStart, closed);
      const firstGap = await this.deps.ingest.firstGap(seriesId, tf);
      const firstOpen = firstGap === null ? span.first : Math.min(span.first, firstGap);
      const r = computeQuality({ timeframe: tf, computedAt: nowMs, candles: closes, firstOpen, latestOpen: span.last, meanBasis });
      await quality.save(seriesId, { timeframe: tf, computedAt: nowMs, ...r });
      n++;
    }
    if (this.deps.onChanged && n > 0) {
      const after = await this.rendered(seriesId);
      if (scoresOf(after) !== scoresOf(before)) this.deps.onChanged(seriesId, after);
    }
    return n;
  }

  /** The stored records of a series, rendered, in timeframe order. */
  private async rendered(seriesId: number): Promise<QualityRecord[]> {
    const rank = (tf: string) => (CANDLE_TIMEFRAMES as readonly string[]).indexOf(tf);
    return ((await this.deps.quality.ofSeries([seriesId])).get(seriesId) ?? []).sort((a, b) => rank(a.timeframe) - rank(b.timeframe)).map(qualityRecord);
  }

  /** Score every series of the served exchanges; returns the number of records written. */
  async computeAll(nowMs: number): Promise<number> {
    let n = 0;
    const bases = new Map<string, Promise<number | null>>();
    for (const { id } of await this.deps.series.list(this.deps.exchanges.names)) n += await this.computeSeries(id, nowMs, bases);
    return n;
  }

  /** The pair's mean basis at `timeframe` over the window, read once per run (`bases`). */
  private meanBasis(bases: Map<string, Promise<number | null>>, perpId: number, spotId: number, timeframe: CandleTimeframe, from: Date, to: Date): Promise<number | null> {
    const key = `${perpId}:${spotId}:${timeframe}:${from.getTime()}:${to.getTime()}`;
    let basis = bases.get(key);
    if (!basis) {
      basis = this.deps.candles.meanBasis(perpId, spotId, timeframe, from, to);
      bases.set(key, basis);
    }
    return basis;
  }

  /** The scheduled run: skipped (null) while another instance holds the job's lock. */
  runExclusive(nowMs: number): Promise<number | null> {
    return this.deps.locks.tryWithLock('qualityJob', () => this.computeAll(nowMs));
  }

  // ---- the read ------------------------------------------------------------------------------

  /** Validate a quality read (400s) and an asked timeframe against the caller's plan (403). */
  parseRequest(caller: Principal, raw: RawParams): QualityRequest {
    const q = this.deps.endpoint.parse(raw, this.deps.clock());
    if (q.timeframe) this.deps.tiers.requireTimeframe(caller.tier, q.timeframe);
    return q;
  }

  /** GET /v1/quality: the records of one market. */
  async report(caller: Principal, raw: RawParams): Promise<{ request: QualityRequest; records: QualityRecord[] }> {
    const request = this.parseRequest(caller, raw);
    const [records] = await this.recordsOf(caller, [request]);
    if (records instanceof Error) throw records;
    return { request, records };
  }

  /**
   * The records of each request (one read for all), by timeframe, only those of the caller's
   * plan; QUALITY_NOT_FOUND in place of a request that has none.
   */
  async recordsOf(caller: Principal, requests: readonly QualityRequest[]): Promise<Array<QualityRecord[] | AppError>> {
    const ids = await this.deps.routed.series.idsOf(requests);
    const stored = await this.deps.routed.quality.ofSeries([...new Set(ids.values())]);
    const allowed = new Set<string>(this.deps.tiers.of(caller.tier).timeframes);
    const rank = (tf: string) => (CANDLE_TIMEFRAMES as readonly string[]).indexOf(tf);
    return requests.map((q) => {
      const id = ids.get(marketKey(q));
      const visible = (id === undefined ? [] : (stored.get(id) ?? []))
        .filter((r) => allowed.has(r.timeframe) && (q.timeframe === undefined || r.timeframe === q.timeframe))
        .sort((a, b) => rank(a.timeframe) - rank(b.timeframe));
      if (visible.length === 0) {
        return new AppError('QUALITY_NOT_FOUND', `no quality data for ${q.exchange} ${q.symbol}${q.timeframe ? ` ${q.timeframe}` : ''} yet`);
      }
      return visible.map(qualityRecord);
    });
  }
}
