/** Sequential request latency with sub-millisecond resolution (one keep-alive connection). */
import http from 'node:http';

export async function sequentialLatency(url: string, n: number, headers: Record<string, string> = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const t = performance.now();
      http
        .get(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
            samples.push(performance.now() - t);
            resolve();
          });
        })
        .on('error', reject);
    });
  for (let i = 0; i < n; i++) await once();
  agent.destroy();
  samples.sort((a, b) => a - b);
  const at = (q: number) => Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] * 1000) / 1000;
  return { p50: at(0.5), p99: at(0.99) };
}
