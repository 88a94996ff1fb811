/**
 * Following the venues once the leader lock is held: each venue's socket delivers closed 1m
 * candles (and a perpetual venue its context, recorded per minute by ContextRecorder); after
 * every (re)connect the last INGEST_RECONCILE_CANDLES (and anything missed) are fetched over
 * REST, and the context's snapshot; a minute sweep fetches what the socket did not deliver;
 * funding is polled after each hour's settlement; gap repair runs on its schedule. One queue per
 * series, a few written at a time. A failed step is logged and the series caught up after a backoff.
 */
import type { Logger } from '../../logger';
import { FUNDING_INTERVAL_MS, TIMEFRAME_MS, bucketStart, lastClosedOpen } from '../../domain/timeframe';
import type { CandleStream, ClosedCandle, ContextUpdate, VenueAdapter } from '../../venues/venue';
import { backoffMs } from '../../venues/venue-http';
import type { Store } from '../../db/store';
import { repeat } from '../runtime/repeat';
import type { LiveWriter } from './live-writer';
import { ContextRecorder } from './context-recorder';
import type { IngestTarget, SeriesFiller } from './series-filler';
import type { IngestStatus } from './ingest-status';
import type { QualityService } from '../derived/quality.service';

export interface LiveSettings {
  sinceMs: number;
  reconcileCandles: number;
  repairIntervalMs: number;
  fundingDelayMs: number;
  /** Funding not there yet: ask again this often (FUNDING_RETRY_MS unless set). */
  fundingRetryMs?: number;
}

const MINUTE = TIMEFRAME_MS['1m'];
/** The sweep runs this long after each minute's close (the socket's close normally came first). */
const SWEEP_DELAY_MS = 5_000;
/** Funding not there yet: ask again this often, this many times, then wait for the next hour. */
const FUNDING_RETRY_MS = 30_000;
const FUNDING_RETRIES = 20;
const STATUS_EVERY_MS = 5_000;

export class LiveSession {
  private readonly queues = new Map<number, Promise<void>>();
  private readonly streams: CandleStream[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly schedules: Array<() => Promise<void>> = [];
  private readonly byInstrument = new Map<string, IngestTarget>();
  private readonly failures = new Map<number, number>();
  /** Series whose backfill has completed: until then, a failed step's catch-up is the backfill again. */
  private readonly backfilled = new Set<number>();
  /** The context recorder of each venue that pushes one. */
  private readonly contexts = new Map<VenueAdapter, ContextRecorder>();
  private stopped = false;

  constructor(
    private readonly targets: readonly IngestTarget[],
    private readonly store: Pick<Store, 'candles' | 'funding' | 'ingest'>,
    private readonly filler: SeriesFiller,
    private readonly writer: LiveWriter,
    private readonly status: IngestStatus,
    private readonly quality: Pick<QualityService, 'computeSeries'>,
    private readonly settings: LiveSettings,
    private readonly clock: () => number,
    private readonly log: Logger,
  ) {
    for (const t of targets) this.byInstrument.set(`${t.adapter.id}|${t.instrument}`, t);
    // A recorder per venue: one whose minutes stay open for late values (contextSettleMs) never delays another's.
    for (const t of targets) {
      if (!t.adapter.contexts || this.contexts.has(t.adapter)) continue;
      this.contexts.set(t.adapter, new ContextRecorder(targets.filter((x) => x.adapter === t.adapter), writer, clock, log));
    }
  }

  /** Backfill every series, follow the sockets, and start the schedules. */
  start(): void {
    const byAdapter = new Map<VenueAdapter, IngestTarget[]>();
    for (const t of this.targets) byAdapter.set(t.adapter, [...(byAdapter.get(t.adapter) ?? []), t]);
    for (const t of this.targets) this.enqueue(t, 'backfill', () => this.backfill(t));
    for (const [adapter, targets] of byAdapter) {
      const instruments = targets.map((t) => t.instrument);
      const stream = adapter.follow(
        instruments,
        {
          onConnected: () => {
            this.status.venueConnected(adapter.id, true);
            void this.reportStatus(); // readers of ingest_status see the change now, not at the next report
            this.log.info({ venue: adapter.id }, 'venue socket connected');
            void this.contexts.get(adapter)?.snapshot(adapter, instruments);
            for (const t of targets) this.enqueue(t, 'reconcile', () => this.reconcile(t));
          },
          onDisconnected: (reason) => {
            this.status.venueConnected(adapter.id, false);
            void this.reportStatus();
            this.log.warn({ venue: adapter.id, reason }, 'venue socket lost; reconnecting');
          },
          onClosed: (c) => this.onClosed(adapter, c),
          ...(adapter.contexts ? { onContext: (u: ContextUpdate) => this.contexts.get(adapter)!.update(adapter, u) } : {}),
        },
      );
      this.streams.push(stream);
    }
    for (const recorder of this.contexts.values()) recorder.start();
    this.schedules.push(
      repeat(() => this.sweep(), () => MINUTE - (this.clock() % MINUTE) + SWEEP_DELAY_MS),
      repeat(() => this.pollFunding(0), () => FUNDING_INTERVAL_MS - (this.clock() % FUNDING_INTERVAL_MS) + this.settings.fundingDelayMs),
      repeat(() => this.repair(), () => this.settings.repairIntervalMs),
      repeat(() => this.reportStatus(), () => STATUS_EVERY_MS, { immediately: true }),
    );
  }

  /** Stop the sockets and schedules, then let queued work finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.streams) s.close();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.schedules.splice(0).map((stop) => stop()));
    await Promise.all([...this.contexts.values()].map((r) => r.stop()));
    for (const t of this.targets) this.status.venueConnected(t.adapter.id, false);
    await Promise.allSettled([...this.queues.values()]);
  }

  /** Everything queued so far is done (tests, the summary of a sync). */
  async idle(): Promise<void> {
    while (this.queues.size) await Promise.allSettled([...this.queues.values()]);
    await Promise.all([...this.contexts.values()].map((r) => r.idle()));
  }

  private async backfill(t: IngestTarget): Promise<void> {
    const started = performance.now();
    const got = await this.filler.backfill(t, this.settings.sinceMs);
    const funding = await this.filler.funding(t, this.settings.sinceMs);
    const context = await this.filler.pastContext(t, bucketStart(this.settings.sinceMs, '1m'), lastClosedOpen(this.clock(), '1m'));
    await this.noteStored(t);
    // Scored now rather than at the quality job's next run (up to QUALITY_INTERVAL away).
    await this.quality.computeSeries(t.series.id, this.clock());
    this.backfilled.add(t.series.id);
    this.log.info({ exchange: t.exchange, symbol: t.symbol, rows: got.rows, venue_gap_slots: got.gapSlots, funding, context, duration_ms: Math.round(performance.now() - started) }, 'backfill done');
  }

  /** After a (re)connect: the last N candles again, and anything missed since the newest stored. */
  private async reconcile(t: IngestTarget): Promise<void> {
    const last = lastClosedOpen(this.clock(), '1m');
    const newest = (await this.store.candles.openSpan(t.series.id, '1m', new Date(last))).last;
    const from = Math.min(last - (this.settings.reconcileCandles - 1) * MINUTE, newest === null ? last : newest + MINUTE);
    await this.filler.fetchRange(t, '1m', Math.max(from, bucketStart(this.settings.sinceMs, '1m')), last);
    // The context minutes the socket's absence left unrecorded, as the venue keeps them.
    await this.filler.pastContext(t, Math.max(from, bucketStart(this.settings.sinceMs, '1m')), last);
    await this.noteStored(t);
  }

  private onClosed(adapter: VenueAdapter, c: ClosedCandle): void {
    const t = this.byInstrument.get(`${adapter.id}|${c.instrument}`);
    if (!t || c.candle.time > lastClosedOpen(this.clock() + 5_000, '1m')) return; // not closed yet
    this.enqueue(t, 'live candle', async () => {
      await this.writer.candles(t.series, '1m', [c.candle]);
      this.status.stored(t.series.id, c.candle.time);
    });
  }

  /** A minute after each close: fetch what the socket did not deliver. */
  private sweep(): void {
    const last = lastClosedOpen(this.clock(), '1m');
    for (const t of this.targets) {
      const newest = this.status.newestStored(t.series.id);
      if (newest !== null && newest >= last) continue;
      this.enqueue(t, 'sweep', async () => {
        if ((this.status.newestStored(t.series.id) ?? -Infinity) >= last) return;
        await this.filler.fillMissing(t, '1m', newest === null ? last : newest + MINUTE, last);
        await this.noteStored(t);
      });
    }
  }

  /** After settlement: funding of every perpetual series until this hour's rate is there. */
  private pollFunding(attempt: number): void {
    const hour = this.clock() - (this.clock() % FUNDING_INTERVAL_MS);
    let late = 0;
    let pending = 0;
    for (const t of this.targets) {
      if (!t.adapter.funding) continue;
      pending++;
      this.enqueue(t, 'funding', async () => {
        await this.filler.funding(t, this.settings.sinceMs);
        const latest = await this.store.funding.latestTime(t.series.id);
        if (latest === null || latest < hour) late++;
        if (--pending === 0 && late > 0 && attempt + 1 < FUNDING_RETRIES && !this.stopped) {
          this.log.info({ hour: new Date(hour).toISOString(), late }, 'funding not settled yet; asking again');
          this.after(this.settings.fundingRetryMs ?? FUNDING_RETRY_MS, () => this.pollFunding(attempt + 1));
        }
      });
    }
  }

  /** Gap repair: slots missing in stored history since the backfill start, fetched again. */
  private repair(): void {
    const to = lastClosedOpen(this.clock(), '1m') - 2 * MINUTE;
    for (const t of this.targets) {
      this.enqueue(t, 'gap repair', async () => {
        const got = await this.filler.fillMissing(t, '1m', bucketStart(this.settings.sinceMs, '1m'), to);
        if (got.rows || got.gapSlots) this.log.info({ exchange: t.exchange, symbol: t.symbol, ...got }, 'gap repair');
      });
    }
  }

  private async reportStatus(): Promise<void> {
    try {
      await this.store.ingest.reportStatus(
        this.targets.map((t) => ({ seriesId: t.series.id, connected: this.status.isConnected(t.adapter.id) })),
        this.clock(),
      );
    } catch (err) {
      this.log.debug({ err }, 'ingest status report failed');
    }
  }

  private async noteStored(t: IngestTarget): Promise<void> {
    const newest = (await this.store.candles.openSpan(t.series.id, '1m', new Date(lastClosedOpen(this.clock(), '1m')))).last;
    if (newest !== null) this.status.stored(t.series.id, newest);
  }

  /** Run `work` after what is queued for the series; a failure catches the series up later. */
  private enqueue(t: IngestTarget, what: string, work: () => Promise<void>): void {
    if (this.stopped) return;
    const id = t.series.id;
    const run = (this.queues.get(id) ?? Promise.resolve()).then(async () => {
      if (this.stopped) return;
      try {
        await work();
        this.failures.delete(id);
      } catch (err) {
        if (this.stopped) return;
        const n = (this.failures.get(id) ?? 0) + 1;
        this.failures.set(id, n);
        const wait = Math.max(1_000, backoffMs(n, 1_000, 30_000));
        this.log.warn({ err: (err as Error).message, exchange: t.exchange, symbol: t.symbol, step: what, retry_in_ms: Math.round(wait) }, 'ingest step failed');
        // A reconcile only reaches back a few candles: a series whose backfill failed would keep the hole.
        this.after(wait, () => this.enqueue(t, 'catch-up', () => (this.backfilled.has(id) ? this.reconcile(t) : this.backfill(t))));
      }
    });
    this.queues.set(id, run);
    void run.then(() => {
      if (this.queues.get(id) === run) this.queues.delete(id);
    });
  }

  private after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(timer);
  }
}
