/** Sequential request latency with sub-millisecond resolution (one keep-alive connection). */
import http from 'node:http';

export interface RequestSpec {
  url: string;
  headers?: Record<string, string>;
  /** POST this body (JSON) instead of a GET. */
  body?: string;
  /** The status every answer must have (default 200). */
  expect?: number;
  /** A body this matches fails the run (GraphQL answers errors with a 200). */
  refuse?: RegExp;
}

export interface Answer {
  status: number;
  /** The body as UTF-8 text (binary formats: compare `bytes`). */
  body: string;
  bytes: number;
  etag?: string;
}

export async function fetchOnce(spec: RequestSpec, agent?: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...(spec.headers ?? {}) };
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    const req = http.request(spec.url, { method: spec.body === undefined ? 'GET' : 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const all = Buffer.concat(chunks);
        const etag = res.headers.etag;
        resolve({ status: res.statusCode ?? 0, body: all.toString('utf8'), bytes: all.length, etag: typeof etag === 'string' ? etag : undefined });
      });
    });
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** A keep-alive agent with one connection. */
export const oneConnection = () => new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * `n` sequential requests on one keep-alive connection (the agent's, kept open, or a new one
 * closed after): each one's time (ms), unsorted.
 */
export async function sequentialSamples(spec: RequestSpec, n: number, kept?: http.Agent): Promise<number[]> {
  const agent = kept ?? oneConnection();
  const samples: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const r = await fetchOnce(spec, agent);
      if (r.status !== (spec.expect ?? 200)) throw new Error(`${spec.url}: status ${r.status}: ${r.body.slice(0, 200)}`);
      if (spec.refuse?.test(r.body)) throw new Error(`${spec.url}: ${r.body.slice(0, 300)}`);
      samples.push(performance.now() - t);
    }
  } finally {
    if (!kept) agent.destroy();
  }
  return samples;
}

/** p50 and p99 of samples (ms, rounded to µs). */
export function summarize(samples: readonly number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 1000) / 1000;
  return { p50: at(0.5), p99: at(0.99) };
}

export async function sequentialLatency(url: string, n: number, headers: Record<string, string> = {}, body?: string) {
  return summarize(await sequentialSamples({ url, headers, body }, n));
}

/** Each path `perRound` times a round on its own connection, the order rotating every round; samples per path (ms). */
export async function alternate(paths: RequestSpec[], rounds: number, perRound: number): Promise<number[][]> {
  const samples = paths.map(() => [] as number[]);
  const agents = paths.map(() => oneConnection());
  try {
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < paths.length; k++) {
        const i = (round + k) % paths.length;
        samples[i].push(...(await sequentialSamples(paths[i], perRound, agents[i])));
      }
    }
  } finally {
    for (const a of agents) a.destroy();
  }
  return samples;
}
