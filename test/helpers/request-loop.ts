/**
 * Traffic across a fault: a few workers send one request after another until stopped, each
 * recorded with its start, end and status (0: no answer within the timeout), for failover tests
 * and benchmarks to judge what callers saw.
 */
import { pause } from './wait';

export interface Sample {
  start: number;
  end: number;
  /** HTTP status; 0 when the request got no answer (timeout or connection error). */
  status: number;
}

export interface RequestLoop {
  /** Every sample so far, in order of completion. */
  readonly samples: readonly Sample[];
  /** Stop after the requests in flight; every sample. */
  stop(): Promise<Sample[]>;
}

export interface RequestLoopOptions {
  workers?: number;
  /** Pause between one worker's requests, so the load leaves the machine to the fault. */
  gapMs?: number;
  /** A request still unanswered after this long is recorded as status 0. */
  timeoutMs?: number;
}

export function requestLoop(send: (signal: AbortSignal) => Promise<Response>, opts: RequestLoopOptions = {}): RequestLoop {
  const samples: Sample[] = [];
  let running = true;
  const worker = async () => {
    while (running) {
      const start = Date.now();
      let status = 0;
      try {
        const res = await send(AbortSignal.timeout(opts.timeoutMs ?? 15_000));
        status = res.status;
        await res.arrayBuffer();
      } catch {
        status = 0;
      }
      samples.push({ start, end: Date.now(), status });
      await pause(opts.gapMs ?? 25);
    }
  };
  const workers = Array.from({ length: opts.workers ?? 4 }, worker);
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(workers);
      return samples;
    },
  };
}

export interface FailoverFigures {
  /** Statuses seen, with their counts. */
  statuses: Record<number, number>;
  /** The slowest request, ms. */
  maxMs: number;
  /** From the start of the first failed request to the end of the last, ms; 0 when none failed. */
  unavailableMs: number;
  /** The end of the first 200 after the last failure: callers served again (null: never). */
  servedAgainAt: number | null;
}

/** What the callers of a loop saw across a fault; a failure is any status but 200 and 429. */
export function failoverFigures(samples: readonly Sample[]): FailoverFigures {
  const sorted = [...samples].sort((a, b) => a.start - b.start);
  const failed = sorted.filter((s) => s.status !== 200 && s.status !== 429);
  const statuses: Record<number, number> = {};
  for (const s of sorted) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const lastFailure = failed.length ? Math.max(...failed.map((s) => s.end)) : -Infinity;
  const servedAgain = sorted.find((s) => s.status === 200 && s.start >= lastFailure);
  return {
    statuses,
    maxMs: Math.max(0, ...sorted.map((s) => s.end - s.start)),
    unavailableMs: failed.length ? lastFailure - Math.min(...failed.map((s) => s.start)) : 0,
    servedAgainAt: servedAgain ? servedAgain.end : null,
  };
}
