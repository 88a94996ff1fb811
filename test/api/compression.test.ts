/**
 * Every data route compresses its bodies (gzip and br when the client accepts them, identity
 * otherwise): the routes are the OpenAPI document's market-data operations, so a route added
 * there without a request here fails, and one added without compression fails below.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { marketOperations } from '../../src/rest/openapi.market-operations';
import { HOUR, T0, iso, loadFixtures } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

const NOW = T0 + 900 * HOUR + 30_000;
const WINDOW = `start=${iso(T0)}&end=${iso(T0 + 100 * HOUR)}`;

/** A request of each data route whose body is well over the 1 KB compression threshold. */
const REQUESTS: Record<string, string> = {
  '/v1/ohlcv': `symbol=BTC-USDT&exchange=spot&timeframe=1h&${WINDOW}`,
  '/v1/funding': `symbol=BTC-USDT&exchange=perp&normalized=true&${WINDOW}`,
  '/v1/derivatives': `symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${iso(T0)}&limit=100`,
  '/v1/multi-asset': `symbols=BTC-USDT,ETH-USDT&exchange=spot&timeframe=1h&field=close&${WINDOW}`,
  '/v1/markets': '',
  '/v1/features': `symbol=BTC-USDT&exchange=spot&timeframe=1h&features=rsi_14,macd&${WINDOW}`,
  '/v1/features/available': '',
  '/v1/quality': 'symbol=BTC-USDT&exchange=spot',
};

describe('compression of the data routes', () => {
  let srv: TestServer;
  let key: string;

  beforeAll(async () => {
    srv = await startTestServer({ clock: () => NOW });
    await loadFixtures(srv.services, NOW);
    key = await srv.key('scale');
  }, 120_000);
  afterAll(() => srv?.stop());

  it('when the API document lists its data routes, then each has a request here', () => {
    expect(Object.keys(REQUESTS).sort()).toEqual(marketOperations(srv.services.endpoints).map((o) => o.path).sort());
  });

  it.each(Object.entries(REQUESTS))('when %s is asked with Accept-Encoding, then its body comes gzip or br, the same bytes once decoded', async (path, query) => {
    const url = `${path}?${query}`;
    const plain = await rawGet(srv.url + url, key, 'identity');
    expect([plain.status, plain.encoding]).toEqual([200, undefined]);
    expect(plain.body.length).toBeGreaterThan(1024);
    const gzip = await rawGet(srv.url + url, key, 'gzip');
    expect([gzip.status, gzip.encoding]).toEqual([200, 'gzip']);
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    const br = await rawGet(srv.url + url, key, 'br');
    expect([br.status, br.encoding]).toEqual([200, 'br']);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
  });
});

/** A GET through node:http, which leaves the body as it was sent (fetch decodes it). */
function rawGet(url: string, key: string, encoding: string): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'X-API-Key': key, 'Accept-Encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
