/**
 * Ingestion from the venues: `mds sync` (backfill once, print a summary) and `mds ingest` /
 * the server with INGEST_SYMBOLS (backfill, then follow live until stopped). Several processes
 * may run it on one database: the one holding the `ingestLeader` advisory lock ingests; the
 * others try again every few seconds, so one takes over within 15 s when the leader dies (its
 * connection closes and PostgreSQL releases the lock).
 */
import type { Store } from '../../db/store';
import type { Logger } from '../../logger';
import type { Exchanges } from '../../domain/exchanges';
import { bucketStart, lastClosedOpen } from '../../domain/timeframe';
import type { VenueAdapter } from '../../venues/venue';
import type { QualityService } from '../derived/quality.service';
import type { LiveWriter } from './live-writer';
import type { IngestStatus } from './ingest-status';
import { LiveSession, type LiveSettings } from './live-session';
import { SeriesFiller, type IngestTarget } from './series-filler';

export interface SyncRequest {
  symbols: readonly string[];
  /** Served exchanges' API names. */
  exchanges: readonly string[];
  sinceMs: number;
}

export interface SyncSummary {
  series: Array<{ exchange: string; symbol: string; venue: string; instrument: string; rows: number; venue_gap_slots: number; funding_rows: number; context_rows: number }>;
  requests: Record<string, number>;
  weight_used: Record<string, number>;
  duration_ms: number;
}

/** How often a standby process tries to become the leader, and the leader checks its lock. */
const LEADER_POLL_MS = 5_000;

export interface IngestDeps {
  store: Store;
  exchanges: Exchanges;
  /** The served exchanges INGEST_SYMBOLS follows (INGEST_EXCHANGES). */
  ingested: readonly string[];
  /** By venue id (createVenueAdapters). */
  adapters: ReadonlyMap<string, VenueAdapter>;
  writer: LiveWriter;
  quality: QualityService;
  status: IngestStatus;
  clock: () => number;
  log: Logger;
}

export class IngestService {
  private readonly filler: SeriesFiller;
  /** Instruments a venue did not list, already logged (venue|instrument). */
  private readonly unlisted = new Set<string>();

  constructor(private readonly deps: IngestDeps) {
    this.filler = new SeriesFiller(deps.store, deps.writer, deps.clock);
  }

  /**
   * The markets to ingest (their series created when new); a symbol a venue does not list is
   * logged once and skipped there only.
   */
  async targets(symbols: readonly string[], exchanges: readonly string[]): Promise<IngestTarget[]> {
    const out: IngestTarget[] = [];
    const listings = new Map<string, Set<string> | null>();
    for (const symbol of symbols) {
      for (const exchange of exchanges) {
        const definition = this.deps.exchanges.get(exchange)!;
        const adapter = this.deps.adapters.get(definition.venue)!;
        const instrument = adapter.instrument(symbol);
        if (!listings.has(adapter.id)) listings.set(adapter.id, adapter.listed ? await adapter.listed() : null);
        const listed = listings.get(adapter.id);
        if (listed && !listed.has(instrument)) {
          if (!this.unlisted.has(`${adapter.id}|${instrument}`)) this.deps.log.warn({ venue: adapter.id, symbol, instrument }, 'the venue does not list this instrument; skipped there');
          this.unlisted.add(`${adapter.id}|${instrument}`);
          continue;
        }
        const id = await this.deps.store.series.ensure({ exchange, symbol });
        out.push({ exchange, symbol, instrument, adapter, series: { id, symbol }, funding: definition.funding });
        this.deps.status.track(id, adapter.id, exchange, symbol);
      }
    }
    return out;
  }

  /** Backfill each series from `sinceMs` to its last closed candle, then score their quality. */
  async sync(req: SyncRequest): Promise<SyncSummary> {
    const started = performance.now();
    const targets = await this.targets(req.symbols, req.exchanges);
    const before = this.totals();
    const series: SyncSummary['series'] = [];
    // The venues in parallel, each venue's series one after the other (one weight budget).
    await Promise.all(
      [...new Set(targets.map((t) => t.adapter))].map(async (adapter) => {
        for (const t of targets.filter((x) => x.adapter === adapter)) {
          const got = await this.filler.backfill(t, req.sinceMs);
          const funding = await this.filler.funding(t, req.sinceMs);
          const context = await this.filler.pastContext(t, bucketStart(req.sinceMs, '1m'), lastClosedOpen(this.deps.clock(), '1m'));
          series.push({ exchange: t.exchange, symbol: t.symbol, venue: t.adapter.id, instrument: t.instrument, rows: got.rows, venue_gap_slots: got.gapSlots, funding_rows: funding, context_rows: context });
        }
      }),
    );
    for (const t of targets) await this.deps.quality.computeSeries(t.series.id, this.deps.clock());
    const after = this.totals();
    const diff = (k: 'requests' | 'weight') => Object.fromEntries(Object.keys(after).map((v) => [v, after[v][k] - before[v][k]]));
    series.sort((a, b) => a.symbol.localeCompare(b.symbol) || a.exchange.localeCompare(b.exchange));
    return { series, requests: diff('requests'), weight_used: diff('weight'), duration_ms: Math.round(performance.now() - started) };
  }

  /**
   * Ingest `symbols` on the ingested exchanges until the returned stop is called: wait to be the leader,
   * backfill, follow. Losing the lock's connection (database restart) ends the session; the
   * loop then tries again, and the next session resumes from what is stored.
   */
  run(symbols: readonly string[], settings: LiveSettings): { stop(): Promise<void>; session(): LiveSession | null } {
    let stopped = false;
    let wake: () => void = () => undefined;
    let current: LiveSession | null = null;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const loop = (async () => {
      let waiting = false;
      for (let attempt = 0; !stopped; ) {
        try {
          const led = await this.deps.store.locks.tryHold('ingestLeader', async (alive) => {
            this.deps.status.role = 'leader';
            waiting = false;
            this.deps.log.info({ symbols }, 'ingest: leader; backfilling, then following the venues');
            const targets = await this.targets(symbols, this.deps.ingested);
            current = new LiveSession(targets, this.deps.store, this.filler, this.deps.writer, this.deps.status, this.deps.quality, settings, this.deps.clock, this.deps.log);
            current.start();
            try {
              while (!stopped) {
                await pause(LEADER_POLL_MS);
                if (!stopped) await alive();
              }
            } finally {
              await current.stop();
              current = null;
              this.deps.status.role = 'standby';
            }
          });
          attempt = 0;
          if (led === null) {
            if (!waiting) this.deps.log.info('ingest: standby; another process is the leader');
            waiting = true;
            this.deps.status.role = 'standby';
            await pause(LEADER_POLL_MS);
          }
        } catch (err) {
          this.deps.log.warn({ err: (err as Error).message }, 'ingest: session ended; trying again');
          // Capped low: after a failover the lock must be taken again on the new primary within seconds.
          await pause(Math.min(LEADER_POLL_MS, 1_000 * 2 ** attempt++));
        }
      }
      this.deps.status.role = 'stopped';
    })();
    return {
      stop: async () => {
        stopped = true;
        // Requests and venue waits in progress end now, so the session's queues drain at once.
        for (const a of this.deps.adapters.values()) a.close();
        wake();
        await loop;
      },
      session: () => current,
    };
  }

  private totals(): Record<string, { requests: number; weight: number }> {
    return Object.fromEntries([...this.deps.adapters.values()].map((a) => [a.id, { ...a.totals }]));
  }
}
