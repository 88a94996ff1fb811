/** Sequential request latency with sub-millisecond resolution (one keep-alive connection). */
import http from 'node:http';

export interface RequestSpec {
  url: string;
  headers?: Record<string, string>;
  /** POST this body (JSON) instead of a GET. */
  body?: string;
}

export async function fetchOnce(spec: RequestSpec, agent?: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { ...(spec.headers ?? {}) };
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    const req = http.request(spec.url, { method: spec.body === undefined ? 'GET' : 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(spec.body);
  });
}

export async function sequentialLatency(url: string, n: number, headers: Record<string, string> = {}, body?: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fetchOnce({ url, headers, body }, agent);
    if (r.status !== 200) throw new Error(`status ${r.status}: ${r.body.slice(0, 200)}`);
    samples.push(performance.now() - t);
  }
  agent.destroy();
  samples.sort((a, b) => a - b);
  const at = (q: number) => Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] * 1000) / 1000;
  return { p50: at(0.5), p99: at(0.99) };
}
