/**
 * The quality job and GET /v1/quality. The job scores every series and timeframe
 * (domain/quality.ts) and stores the record with computed_at; it runs after imports, from
 * `mds compute`, and on a schedule in the server, where a PostgreSQL advisory lock lets only
 * one instance run it at a time when several share a database.
 */
import type { Database } from '../db/database';
import { AppError } from '../domain/errors';
import { formatFloat } from '../domain/decimal';
import * as P from '../domain/query-params';
import type { RawParams } from '../domain/query-params';
import { QUALITY_WINDOW_MS, bandOf, computeQuality } from '../domain/quality';
import { formatTimestamp } from '../domain/time';
import { CANDLE_TIMEFRAMES, lastClosedOpen, type CandleTimeframe } from '../domain/timeframe';
import type { Principal } from './access/principal';
import type { Exchanges } from './exchanges';
import type { TierPolicy } from './tier-policy';

export const QUALITY_LOCK_KEY = 7_734_212;

export interface QualityView {
  timeframe: CandleTimeframe;
  dqs: string;
  band: string;
  computed_at: string;
  components: { gap_rate_score: string; anomaly_score: string; consistency_score: string; freshness_score: string };
  expected_candles: number;
  present_candles: number;
  missing_intervals: Array<{ start: string; end: string }>;
}

export interface QualityReport {
  exchange: string;
  symbol: string;
  timeframes: QualityView[];
}

export class QualityService {
  constructor(
    private readonly db: Database,
    private readonly exchanges: Exchanges,
    private readonly tiers: TierPolicy,
  ) {}

  /** Score one series at every timeframe it has. */
  async computeSeries(seriesId: number, nowMs: number): Promise<number> {
    const [series] = await this.db.query<{ exchange: string; symbol: string }>('SELECT exchange, symbol FROM series WHERE id = $1', [seriesId]);
    if (!series) return 0;
    const other = series.exchange === this.exchanges.perp ? this.exchanges.spot : this.exchanges.perp;
    const [pair] = await this.db.query<{ id: number }>('SELECT id FROM series WHERE exchange = $1 AND symbol = $2', [other, series.symbol]);
    const windowStart = new Date(nowMs - QUALITY_WINDOW_MS);
    const now = new Date(nowMs);
    let n = 0;
    for (const tf of CANDLE_TIMEFRAMES) {
      // Closed candles only, as everywhere they are served.
      const closed = new Date(lastClosedOpen(nowMs, tf));
      const [span] = await this.db.query<{ first: number | null; last: number | null }>(
        `SELECT (extract(epoch FROM min(time)) * 1000)::int8 AS first, (extract(epoch FROM max(time)) * 1000)::int8 AS last
         FROM candles WHERE series_id = $1 AND timeframe = $2 AND time <= $3`,
        [seriesId, tf, closed],
      );
      if (span.first === null) continue;
      const candles = await this.db.query<{ time: number; close: number }>(
        `SELECT (extract(epoch FROM time) * 1000)::int8 AS time, close::float8 AS close FROM candles
         WHERE series_id = $1 AND timeframe = $2 AND time >= $3 AND time <= $4 ORDER BY time`,
        [seriesId, tf, windowStart, closed],
      );
      let meanBasis: number | null = null;
      if (pair) {
        const [b] = await this.db.query<{ basis: number | null }>(
          `SELECT avg(abs(p.close - s.close) / s.close)::float8 AS basis
           FROM candles p JOIN candles s ON s.time = p.time AND s.timeframe = p.timeframe
           WHERE p.series_id = $1 AND s.series_id = $2 AND p.timeframe = $3 AND p.time >= $4 AND p.time <= $5`,
          series.exchange === this.exchanges.perp ? [seriesId, pair.id, tf, windowStart, closed] : [pair.id, seriesId, tf, windowStart, closed],
        );
        meanBasis = b.basis;
      }
      const r = computeQuality({ timeframe: tf, computedAt: nowMs, candles, firstOpen: span.first, latestOpen: span.last, meanBasis });
      const data = {
        computedAt: now,
        dqs: r.dqs,
        gapRateScore: r.gapRate,
        anomalyScore: r.anomaly,
        consistencyScore: r.consistency,
        freshnessScore: r.freshness,
        expectedCandles: r.expected,
        presentCandles: r.present,
        missingIntervals: r.missing,
      };
      await this.db.prisma.qualityRecord.upsert({
        where: { seriesId_timeframe: { seriesId, timeframe: tf } },
        create: { seriesId, timeframe: tf, ...data },
        update: data,
      });
      n++;
    }
    return n;
  }

  /** Score everything; returns the number of records written. */
  async computeAll(nowMs: number): Promise<number> {
    const series = await this.db.query<{ id: number }>('SELECT id FROM series ORDER BY id');
    let n = 0;
    for (const s of series) n += await this.computeSeries(s.id, nowMs);
    return n;
  }

  /**
   * The scheduled run: skipped (returns null) while another instance holds the lock.
   */
  async runExclusive(nowMs: number): Promise<number | null> {
    return this.db.session(async (s) => {
      const [{ locked }] = await s.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [QUALITY_LOCK_KEY]);
      if (!locked) return null;
      try {
        return await this.computeAll(nowMs);
      } finally {
        await s.query('SELECT pg_advisory_unlock($1)', [QUALITY_LOCK_KEY]);
      }
    });
  }

  /** GET /v1/quality: the caller's tier sees only its timeframes (free: 1h, 4h, 1d). */
  get params() {
    return [P.SYMBOL, this.exchanges.param, P.OPTIONAL_TIMEFRAME];
  }

  async report(caller: Principal, raw: RawParams): Promise<QualityReport> {
    const symbol = P.need(P.SYMBOL, raw);
    const exchange = P.need(this.exchanges.param, raw);
    const asked = P.read(P.OPTIONAL_TIMEFRAME, raw);
    if (asked) this.tiers.requireTimeframe(caller.tier, asked);
    const allowed = new Set<string>(this.tiers.of(caller.tier).timeframes);
    const rows = await this.db.prisma.qualityRecord.findMany({
      where: { series: { exchange, symbol }, ...(asked ? { timeframe: asked } : {}) },
    });
    const visible = rows
      .filter((r) => allowed.has(r.timeframe))
      .sort((a, b) => CANDLE_TIMEFRAMES.indexOf(a.timeframe as CandleTimeframe) - CANDLE_TIMEFRAMES.indexOf(b.timeframe as CandleTimeframe));
    if (visible.length === 0) {
      throw new AppError('QUALITY_NOT_FOUND', `no quality data for ${exchange} ${symbol}${asked ? ` ${asked}` : ''} yet`);
    }
    const f4 = (x: number) => formatFloat(x, 4)!;
    return {
      exchange,
      symbol,
      timeframes: visible.map((r) => ({
        timeframe: r.timeframe as CandleTimeframe,
        dqs: f4(r.dqs),
        band: bandOf(Number(f4(r.dqs))),
        computed_at: formatTimestamp(r.computedAt.getTime()),
        components: {
          gap_rate_score: f4(r.gapRateScore),
          anomaly_score: f4(r.anomalyScore),
          consistency_score: f4(r.consistencyScore),
          freshness_score: f4(r.freshnessScore),
        },
        expected_candles: r.expectedCandles,
        present_candles: r.presentCandles,
        missing_intervals: (r.missingIntervals as Array<[number, number]>).map(([s, e]) => ({ start: formatTimestamp(s), end: formatTimestamp(e) })),
      })),
    };
  }
}
