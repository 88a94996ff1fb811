/**
 * The first start's seed child makes its rows in a worker thread: generating, rolling up,
 * computing features and encoding them is JavaScript, while the writes are PGlite's
 * WebAssembly on the child's main thread. Each on its own core, a symbol's rows are made while
 * the previous symbol's are written. Both sides are in this file; the thread runs it from a
 * build (dist/) only.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { symbolSeeds, type DemoSeries, type DemoWindow, type SeriesSeed } from './demo-seed-rows';
import type { SeedRowsSource } from './demo-seed.service';

const ROLE = 'demo-seed-rows';

interface Request {
  symbol: number;
  series: readonly DemoSeries[];
  window: DemoWindow;
}
type Reply = { symbol: number; seeds: SeriesSeed[] } | { symbol: number; error: string };

/** The worker's side: each request answered with its symbol's seeds (or why they failed). */
function serve(port: NonNullable<typeof parentPort>): void {
  port.on('message', (req: Request) => {
    symbolSeeds(req.symbol, req.series, req.window).then(
      (seeds) => port.postMessage({ symbol: req.symbol, seeds } satisfies Reply),
      (err: Error) => port.postMessage({ symbol: req.symbol, error: err.stack ?? String(err) } satisfies Reply),
    );
  });
}

/** Buffers cross the thread as plain Uint8Arrays: views of them as Buffers again (no copy). */
function asBuffers(seeds: SeriesSeed[]): SeriesSeed[] {
  const view = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  for (const s of seeds) {
    for (const rows of [...(s.encoded?.candles ?? []), ...(s.encoded?.features ?? [])]) rows.chunks = rows.chunks.map(view);
  }
  return seeds;
}

/** A worker thread making the seed's rows, started now (its modules load meanwhile); `close` ends it. */
export function seedWorker(): SeedRowsSource & { close(): Promise<void> } {
  const worker = new Worker(__filename, { workerData: ROLE });
  const pending = new Map<number, { resolve: (s: SeriesSeed[]) => void; reject: (e: Error) => void }>();
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (reply: Reply) => {
    const p = pending.get(reply.symbol);
    pending.delete(reply.symbol);
    if ('error' in reply) p?.reject(new Error(`the seed's worker thread failed: ${reply.error}`));
    else p?.resolve(asBuffers(reply.seeds));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the seed's worker thread exited with code ${code}`)));
  return {
    symbol: (symbol, series, window) =>
      new Promise((resolve, reject) => {
        pending.set(symbol, { resolve, reject });
        worker.postMessage({ symbol, series, window } satisfies Request);
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}

if (!isMainThread && workerData === ROLE && parentPort) serve(parentPort);
