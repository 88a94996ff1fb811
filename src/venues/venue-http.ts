/**
 * REST calls to one venue: the weight budget taken before each request, bounded retries with
 * jittered exponential backoff on network errors and 5xx, Retry-After obeyed on 429 (the whole
 * venue waits), and a ban (418; Bybit's 403) or any other 4xx turned into a VenueRefusedError at
 * once; errors a venue sends inside a 200 are told apart by its `answerProblem`. Never a tight
 * loop: every retry waits.
 */
import { NO_OBSERVER, VenueRefusedError, type VenueObserver } from './venue';
import { WeightBudget } from './weight-budget';

export interface VenueHttpOptions {
  venue: string;
  baseUrl: string;
  weightPerMinute: number;
  /** Response header in which the venue reports the weight used this minute. */
  usedWeightHeader?: string;
  observer?: VenueObserver;
  /** Attempts per request before giving up (default 6). */
  attempts?: number;
  /** Longest wait for one response (default 15 s). */
  timeoutMs?: number;
  now?: () => number;
  /**
   * The status by which the venue bans an IP and the ban's length when it does not say
   * (default: Binance's 418, 60 s).
   */
  ban?: { status: number; ms: number };
  /** A venue that reports errors inside a 200 answer (Bybit's `retCode`): the problem, or null for data. */
  answerProblem?: (json: unknown, headers: Headers) => AnswerProblem | null;
  /** A short-window request limit besides the weight per minute (Bybit: 600 per 5 s per IP). */
  burst?: { requests: number; windowMs: number };
}

/**
 * An error a venue sends as a 200 answer: rate limited (wait `waitMs`, or back off), worth
 * retrying (the venue's own timeout), or refused (a parameter it will not take).
 */
export type AnswerProblem = { kind: 'rate-limited'; reason: string; waitMs: number | null } | { kind: 'retry'; reason: string } | { kind: 'refused'; reason: string };

export interface VenueRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  /** Weight taken before sending. */
  weight: number;
  /** Extra weight the answer turns out to cost (e.g. per item returned). */
  extraWeight?: (json: unknown) => number;
  /** An endpoint's own limit besides the venue's (`budget`), taken first: one unit a request. */
  endpointBudget?: WeightBudget;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;

/** Full-jitter exponential backoff: a random wait up to base * 2^attempt, capped. */
export function backoffMs(attempt: number, base = BACKOFF_BASE_MS, cap = BACKOFF_CAP_MS): number {
  return Math.random() * Math.min(cap, base * 2 ** attempt);
}

function retryAfterMs(res: Response): number | null {
  const v = res.headers.get('retry-after');
  if (v === null) return null;
  const secs = Number(v);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The venue's own reason, short: Binance {"code","msg"}, Bybit {"retCode","retMsg"}, else the first line of the body. */
function reasonOf(status: number, body: string): string {
  try {
    const j = JSON.parse(body) as { msg?: unknown; code?: unknown; error?: unknown; retCode?: unknown; retMsg?: unknown };
    if (typeof j?.msg === 'string') return `HTTP ${status} ${j.code ?? ''} ${j.msg}`.replace(/\s+/g, ' ').trim();
    if (typeof j?.retMsg === 'string') return `HTTP ${status} ${j.retCode ?? ''} ${j.retMsg}`.replace(/\s+/g, ' ').trim();
    if (typeof j?.error === 'string') return `HTTP ${status} ${j.error}`;
  } catch {
    // not JSON
  }
  const line = body.split('\n')[0].trim().slice(0, 200);
  return line ? `HTTP ${status} ${line}` : `HTTP ${status}`;
}

export class VenueHttp {
  readonly budget: WeightBudget;
  private readonly burst: WeightBudget | null;
  private readonly observer: VenueObserver;
  private readonly attempts: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly stop = new AbortController();
  /** Requests made and weight spent since start (the `mds sync` summary). */
  readonly totals = { requests: 0, weight: 0 };

  constructor(private readonly o: VenueHttpOptions) {
    this.now = o.now ?? Date.now;
    this.budget = new WeightBudget(o.weightPerMinute, this.now, (ms) => this.sleep(ms));
    this.burst = o.burst ? this.endpointBudget(o.burst.requests, o.burst.windowMs) : null;
    this.observer = o.observer ?? NO_OBSERVER;
    this.attempts = o.attempts ?? 6;
    this.timeoutMs = o.timeoutMs ?? 15_000;
  }

  /** A budget of `requests` per `windowMs` for an endpoint (VenueRequest.endpointBudget). */
  endpointBudget(requests: number, windowMs: number): WeightBudget {
    return new WeightBudget(requests, this.now, (ms) => this.sleep(ms), windowMs);
  }

  /** Abort every request and wait in progress (shutdown). */
  close(): void {
    this.stop.abort();
  }

  async json(req: VenueRequest): Promise<unknown> {
    const url = new URL(this.o.baseUrl + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, String(v));
    let rateLimited = 0;
    for (let attempt = 0; ; attempt++) {
      await req.endpointBudget?.take(1);
      await this.burst?.take(1);
      await this.budget.take(req.weight);
      this.totals.requests++;
      this.spend(req.weight);
      let res: Response;
      try {
        res = await fetch(url, {
          method: req.method,
          headers: req.body === undefined ? undefined : { 'content-type': 'application/json' },
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
          signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.timeoutMs)]),
        });
      } catch (err) {
        if (this.stop.signal.aborted) throw err;
        this.observer.request(this.o.venue, 'error');
        if (attempt + 1 >= this.attempts) throw new Error(`${this.o.venue} unreachable: ${(err as Error).message}`);
        await this.sleep(backoffMs(attempt));
        continue;
      }
      this.observer.request(this.o.venue, String(res.status));
      const used = this.o.usedWeightHeader ? Number(res.headers.get(this.o.usedWeightHeader)) : NaN;
      if (Number.isFinite(used)) this.budget.observeUsed(used);
      let problem: AnswerProblem | null = null;
      let wait: number | null = null;
      if (res.ok) {
        const json: unknown = await res.json();
        problem = this.o.answerProblem?.(json, res.headers) ?? null;
        if (problem === null) {
          const extra = req.extraWeight?.(json) ?? 0;
          this.budget.add(extra);
          this.spend(extra);
          return json;
        }
        if (problem.kind === 'refused') throw new VenueRefusedError(this.o.venue, problem.reason);
        if (problem.kind === 'rate-limited') wait = problem.waitMs;
      } else {
        const body = await res.text().catch(() => '');
        wait = retryAfterMs(res);
        const ban = this.o.ban ?? { status: 418, ms: 60_000 };
        if (res.status === ban.status) {
          const until = this.now() + (wait ?? ban.ms);
          this.budget.closeUntil(until);
          throw new VenueRefusedError(this.o.venue, `IP banned (HTTP ${res.status}) for ${Math.ceil((until - this.now()) / 1000)} s`, until);
        }
        if (res.status === 429) problem = { kind: 'rate-limited', reason: 'HTTP 429', waitMs: wait };
        else if (res.status >= 400 && res.status < 500) throw new VenueRefusedError(this.o.venue, reasonOf(res.status, body));
        else problem = { kind: 'retry', reason: reasonOf(res.status, body) };
      }
      if (problem.kind === 'rate-limited') {
        rateLimited++;
        this.budget.closeUntil(this.now() + (wait ?? BACKOFF_BASE_MS * 2 ** rateLimited));
        if (rateLimited >= this.attempts) throw new VenueRefusedError(this.o.venue, `rate limited (${problem.reason}) ${rateLimited} times in a row`);
        attempt--; // a rate limit waits its time; it does not spend an error attempt
        continue;
      }
      if (attempt + 1 >= this.attempts) throw new Error(`${this.o.venue} unavailable: ${problem.reason}`);
      await this.sleep(Math.max(wait ?? 0, backoffMs(attempt)));
    }
  }

  private spend(weight: number): void {
    if (weight <= 0) return;
    this.totals.weight += weight;
    this.observer.weight(this.o.venue, weight);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.stop.signal.aborted) return reject(new Error('venue client closed'));
      const timer = setTimeout(() => {
        this.stop.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Error('venue client closed'));
      };
      this.stop.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
