/**
 * Recording the perpetual's context while following a venue: every update from the socket (and
 * the snapshot asked at each (re)connect) is folded into its minute of the local clock; at each
 * minute's end the minutes that ended, every series', are one write through the LiveWriter. A
 * minute that saw no update is never written (nothing is repeated). A write that fails is kept
 * and sent again with the next minute's, up to a day of minutes per series.
 */
import type { Logger } from '../../logger';
import { ContextMinutes, type DerivativesInput } from '../../domain/derivatives';
import type { ContextUpdate, VenueAdapter } from '../../venues/venue';
import { InFlight } from '../runtime/in-flight';
import { repeat } from '../runtime/repeat';
import type { LiveWriter } from './live-writer';
import type { IngestTarget } from './series-filler';

const MINUTE = 60_000;
/** Minutes kept per series while their writes fail. */
const MAX_PENDING = 1_440;

export class ContextRecorder {
  private readonly minutes: ContextMinutes<number>;
  /** How long past its end a minute stays open: the longest any venue here needs. */
  private readonly settleMs: number;
  private readonly byInstrument = new Map<string, IngestTarget>();
  private readonly bySeries = new Map<number, IngestTarget>();
  private readonly pending = new Map<number, DerivativesInput[]>();
  private readonly writing = new InFlight();
  private stopSchedule: (() => Promise<void>) | null = null;

  constructor(
    targets: readonly IngestTarget[],
    private readonly writer: Pick<LiveWriter, 'derivatives'>,
    private readonly clock: () => number,
    private readonly log: Logger,
  ) {
    for (const t of targets) {
      this.byInstrument.set(`${t.adapter.id}|${t.instrument}`, t);
      this.bySeries.set(t.series.id, t);
    }
    this.settleMs = Math.max(0, ...targets.map((t) => t.adapter.contextSettleMs ?? 0));
    this.minutes = new ContextMinutes(this.settleMs);
  }

  /** Close each minute as it ends (a millisecond after, by the local clock). */
  start(): void {
    this.stopSchedule = repeat(() => this.flush(), () => MINUTE - ((this.clock() - this.settleMs) % MINUTE) + 1);
  }

  async stop(): Promise<void> {
    await this.stopSchedule?.();
    this.stopSchedule = null;
    await this.writing.drain();
  }

  /** An update received now. */
  update(adapter: VenueAdapter, u: ContextUpdate): void {
    const t = this.byInstrument.get(`${adapter.id}|${u.instrument}`);
    if (!t) return;
    const ended = this.minutes.update(t.series.id, u.context, u.atMs ?? this.clock());
    const rows = new Map<number, DerivativesInput[]>(ended ? [[t.series.id, [ended]]] : []);
    // Minutes that settled meanwhile go now, not only at the schedule's next turn (a timer runs
    // on real time; the clock may have moved otherwise).
    if (this.settleMs > 0) for (const [id, row] of this.minutes.close(this.clock())) rows.set(id, [...(rows.get(id) ?? []), row]);
    if (rows.size > 0) this.write(rows);
  }

  /** The venue's snapshot (at start and after a reconnect): it fills the current minute only. */
  async snapshot(adapter: VenueAdapter, instruments: readonly string[]): Promise<void> {
    if (!adapter.contexts) return;
    try {
      for (const u of await adapter.contexts(instruments)) this.update(adapter, u);
    } catch (err) {
      this.log.warn({ venue: adapter.id, err: (err as Error).message }, 'context snapshot failed; the socket fills the minute');
    }
  }

  /** Write the minutes that ended, every series' in one write. */
  flush(): void {
    const ended = new Map<number, DerivativesInput[]>();
    for (const [id, row] of this.minutes.close(this.clock())) ended.set(id, [row]);
    this.write(ended);
  }

  /** Written everything handed over so far (tests). */
  idle(): Promise<void> {
    return this.writing.drain();
  }

  /** Write `rows` by series, with what failed before; a failure keeps them for the next write. */
  private write(rows: Map<number, DerivativesInput[]>): void {
    const batch = new Map(this.pending);
    this.pending.clear();
    for (const [id, list] of rows) batch.set(id, [...(batch.get(id) ?? []), ...list]);
    if (batch.size === 0) return;
    const entries = [...batch].map(([id, list]) => ({ series: this.bySeries.get(id)!.series, rows: list }));
    const run = this.writer.derivatives(entries).catch((err: unknown) => {
      for (const [id, list] of batch) this.pending.set(id, [...list, ...(this.pending.get(id) ?? [])].slice(-MAX_PENDING));
      this.log.warn({ series: batch.size, err: (err as Error).message }, 'context minutes not written; kept for the next minute');
    });
    void this.writing.track(run);
  }
}
