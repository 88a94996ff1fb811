/**
 * Small pages from memory (docs/DECISIONS.md, "Small pages from memory"): a dashboard polls the
 * same few small pages, and each poll read and rendered them again. A JSON body of at most
 * MAX_ENTRY_BYTES is kept with its tag under its tag's parameters and cut-off end, and served
 * again while no watermark of its scope has moved: every move is announced by PostgreSQL when it
 * commits (followWatermarks). Nothing is served from memory while that announcement cannot be
 * trusted: before listening, after a lost connection (everything kept is dropped), with replicas.
 */
import type { WatermarkMove, WatermarkScope } from '../../db/watermarks.repository';

/** The largest body kept: a dashboard's page (about 450 candles), not a bulk download. */
export const MAX_ENTRY_BYTES = 64 * 1024;

export interface CachedResponse {
  body: Uint8Array;
  tag: string;
}

/** Taken before a page is read: what the cache knew then, so a move during the read is not missed. */
export interface ReadTicket {
  readonly seq: number;
  readonly epoch: number;
}

interface Entry extends CachedResponse {
  scope: WatermarkScope;
  /** The moves the page's read may not have seen are those after this one. */
  seq: number;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private listening = false;
  /** Moves heard, counted; per (series, timeframe) the last that touched it; the last that touched everything. */
  private seq = 0;
  private readonly touched = new Map<string, number>();
  private everything = 0;
  /** Bumped whenever listening starts or stops: tickets from before are void. */
  private epoch = 0;

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** Whether moves are being heard (kept pages may be served). */
  get live(): boolean {
    return this.enabled && this.listening;
  }

  /** Answers served from memory so far. */
  hits = 0;

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** A committed move of watermarks. */
  moved(move: WatermarkMove): void {
    this.seq++;
    if (move === 'all') this.everything = this.seq;
    else for (const id of move.seriesIds) this.touched.set(`${id}|${move.timeframe}`, this.seq);
  }

  /** Listening started or stopped: either way, what was kept may have missed a move. */
  listeningChanged(listening: boolean): void {
    this.listening = listening;
    this.epoch++;
    this.entries.clear();
    this.touched.clear();
    this.bytes = 0;
  }

  /** Before reading a page that may be kept. */
  ticket(): ReadTicket | null {
    return this.live ? { seq: this.seq, epoch: this.epoch } : null;
  }

  /** The response kept under `key`, while none of its scope's watermarks moved since its read. */
  get(key: string): CachedResponse | null {
    if (!this.live) return null;
    const e = this.entries.get(key);
    if (e === undefined) return null;
    if (this.movedSince(e.scope, e.seq)) {
      this.drop(key, e);
      return null;
    }
    // Most recently used last: the Map's order is the eviction order.
    this.entries.delete(key);
    this.entries.set(key, e);
    this.hits++;
    return { body: e.body, tag: e.tag };
  }

  /** Keep a page's response read after `ticket`, if small enough and nothing moved meanwhile that its read may have missed. */
  put(key: string, scope: WatermarkScope, ticket: ReadTicket | null, response: CachedResponse): void {
    if (ticket === null || ticket.epoch !== this.epoch || !this.live || response.body.length > MAX_ENTRY_BYTES) return;
    if (this.movedSince(scope, ticket.seq)) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, { ...response, scope, seq: ticket.seq });
    this.bytes += response.body.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(k, e);
    }
  }

  private movedSince(scope: WatermarkScope, seq: number): boolean {
    if (this.everything > seq) return true;
    for (const id of scope.seriesIds) for (const tf of scope.timeframes) if ((this.touched.get(`${id}|${tf}`) ?? 0) > seq) return true;
    return false;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.body.length;
  }
}
