/**
 * `mds seed-demo`: writes the deterministic demo data set (domain/demo-data.ts) for both
 * venues, ending at the last complete period before `now`: 1m candles for the last 7 days,
 * imported 1h candles for the 400 days before, every coarser timeframe rolled up, hourly
 * funding for the perpetual venue over the last 60 days, and a few gaps on one series.
 */
import type { Database, SqlSession } from '../db/database';
import { bulkUpsert } from '../db/bulk-upsert';
import { ensureSeries } from '../db/series.repository';
import {
  DEMO_SYMBOLS,
  DemoCandle,
  DemoSymbol,
  aggregate,
  demoFundingRate,
  demoPerpOf,
  demoSpotDay,
} from '../domain/demo-data';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../domain/time';
import { CANDLE_TIMEFRAMES, bucketStart, lastClosedOpen } from '../domain/timeframe';
import type { Exchanges } from './exchanges';
import type { FeatureEngine } from './feature-engine.service';
import { rollup } from './rollup.service';

export const DEMO_MINUTE_DAYS = 7;
/** Key of the session advisory lock around seeding at start-up. */
export const SEED_LOCK_KEY = 7_734_213;
export const DEMO_HOUR_DAYS = 400;
export const DEMO_FUNDING_DAYS = 60;
/** The series that carries the deliberate gaps. */
export const DEMO_GAPPY = { symbol: 'SOL-USDT', venue: 'spot' as const };

export interface SeedSummary {
  series: number;
  candles1m: number;
  candles1h: number;
  funding: number;
  featureRows: number;
  endMs: number;
}

const CANDLE_COLUMNS = ['series_id', 'timeframe', 'time', 'open', 'high', 'low', 'close', 'volume', 'derived'];

/** Minute ranges [start, end) cut out of the gappy series, relative to the last minute. */
function minuteGaps(lastMinute: number): Array<[number, number]> {
  return [
    [lastMinute - 2 * DAY_MS + 100 * MINUTE_MS, 7],
    [lastMinute - 4 * DAY_MS + 300 * MINUTE_MS, 15],
    [lastMinute - 5 * DAY_MS + 50 * MINUTE_MS, 30],
  ].map(([s, n]) => [bucketStart(s, '1m'), bucketStart(s, '1m') + n * MINUTE_MS]);
}

function inGaps(t: number, gaps: Array<[number, number]>): boolean {
  return gaps.some(([s, e]) => t >= s && t < e);
}

function candleLines(seriesId: number, tf: string, candles: DemoCandle[], sym: DemoSymbol): string {
  const parts: string[] = [];
  for (const c of candles) {
    parts.push(
      `${seriesId},${tf},${new Date(c.time).toISOString()},${c.open.toFixed(sym.decimals)},${c.high.toFixed(sym.decimals)},` +
        `${c.low.toFixed(sym.decimals)},${c.close.toFixed(sym.decimals)},${c.volume.toFixed(4)},f\n`,
    );
  }
  return parts.join('');
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

async function writeCandles(tx: SqlSession, lines: string): Promise<void> {
  await bulkUpsert(
    tx,
    { table: 'candles', columns: CANDLE_COLUMNS, key: ['series_id', 'timeframe', 'time'] },
    () => once(lines),
  );
}

export class DemoSeedService {
  constructor(
    private readonly db: Database,
    private readonly exchanges: Exchanges,
    private readonly features: FeatureEngine,
  ) {}

  /** True when no market exists yet (a fresh database). */
  async isEmpty(): Promise<boolean> {
    return (await this.db.prisma.series.count()) === 0;
  }

  /**
   * Seed when the database is empty, under a session advisory lock: replicas starting together
   * on a fresh database seed once (the others wait, then find it seeded). Null when not empty.
   */
  async seedIfEmpty(nowMs: number, onSeeding: () => void = () => undefined): Promise<SeedSummary | null> {
    return this.db.session(async (s) => {
      await s.query('SELECT pg_advisory_lock($1)', [SEED_LOCK_KEY]);
      try {
        if (!(await this.isEmpty())) return null;
        onSeeding();
        return await this.seed(nowMs);
      } finally {
        await s.query('SELECT pg_advisory_unlock($1)', [SEED_LOCK_KEY]).catch(() => undefined);
      }
    });
  }

  async seed(nowMs: number): Promise<SeedSummary> {
    const lastMinute = lastClosedOpen(nowMs, '1m');
    const cut = bucketStart(nowMs, '1h') - DEMO_MINUTE_DAYS * DAY_MS;
    const hourStart = cut - DEMO_HOUR_DAYS * DAY_MS;
    const gaps = minuteGaps(lastMinute);
    const hourGaps: Array<[number, number]> = [[cut - 30 * DAY_MS + 5 * HOUR_MS, cut - 30 * DAY_MS + 7 * HOUR_MS]];
    const summary: SeedSummary = { series: 0, candles1m: 0, candles1h: 0, funding: 0, featureRows: 0, endMs: lastMinute };

    for (const sym of DEMO_SYMBOLS) {
      const minutes = { spot: [] as DemoCandle[], perp: [] as DemoCandle[] };
      const hours = { spot: [] as DemoCandle[], perp: [] as DemoCandle[] };
      const cutDay = bucketStart(cut, '1d');
      for (let day = bucketStart(hourStart, '1d'); day <= lastMinute; day += DAY_MS) {
        // Days before the cut day are generated hourly; the rest by the minute.
        const spot = demoSpotDay(sym, day, day < cutDay ? HOUR_MS : MINUTE_MS);
        const perp = demoPerpOf(sym, spot);
        for (const [venue, candles] of [['spot', spot], ['perp', perp]] as const) {
          const old = candles.filter((c) => c.time >= hourStart && c.time < cut);
          hours[venue].push(...(day < cutDay ? old : aggregate(old, HOUR_MS)));
          minutes[venue].push(...candles.filter((c) => c.time >= cut && c.time <= lastMinute));
        }
      }
      for (const venue of ['spot', 'perp'] as const) {
        const exchange = venue === 'spot' ? this.exchanges.spot : this.exchanges.perp;
        const gappy = sym.symbol === DEMO_GAPPY.symbol && venue === DEMO_GAPPY.venue;
        const m = gappy ? minutes[venue].filter((c) => !inGaps(c.time, gaps)) : minutes[venue];
        const h = gappy ? hours[venue].filter((c) => !inGaps(c.time, hourGaps)) : hours[venue];
        const seriesId = await this.db.transaction(async (tx) => {
          const id = await ensureSeries(tx, exchange, sym.symbol);
          // A later re-seed must not import hourly candles over hours already covered by
          // minutes (their 1h is the rollup of those minutes).
          const [{ first }] = await tx.query<{ first: Date | null }>(
            "SELECT min(time) AS first FROM candles WHERE series_id = $1 AND timeframe = '1m'",
            [id],
          );
          const hoursBefore = first ? h.filter((c) => c.time < first.getTime()) : h;
          await writeCandles(tx, candleLines(id, '1h', hoursBefore, sym));
          await writeCandles(tx, candleLines(id, '1m', m, sym));
          await rollup(tx, { seriesId: id, from: '1h', startMs: hourStart, endMs: cut - 1 }, nowMs);
          await rollup(tx, { seriesId: id, from: '1m', startMs: cut, endMs: lastMinute }, nowMs);
          if (venue === 'perp') summary.funding += await this.writeFunding(tx, id, sym, nowMs);
          return id;
        });
        for (const tf of CANDLE_TIMEFRAMES) summary.featureRows += await this.features.technical(seriesId, tf, null);
        summary.series++;
        summary.candles1m += m.length;
        summary.candles1h += h.length;
      }
      await this.features.funding(sym.symbol);
    }
    return summary;
  }

  private async writeFunding(tx: SqlSession, seriesId: number, sym: DemoSymbol, nowMs: number): Promise<number> {
    const last = bucketStart(nowMs, '1h');
    const lines: string[] = [];
    for (let t = last - DEMO_FUNDING_DAYS * DAY_MS + HOUR_MS; t <= last; t += HOUR_MS) {
      lines.push(`${seriesId},${new Date(t).toISOString()},${demoFundingRate(sym, t).toFixed(8)}\n`);
    }
    await bulkUpsert(
      tx,
      { table: 'funding_rates', columns: ['series_id', 'time', 'rate'], key: ['series_id', 'time'] },
      () => once(lines.join('')),
    );
    return lines.length;
  }
}
