/**
 * Every data route compresses its bodies (gzip and br when the client accepts them, identity
 * otherwise): the routes are the OpenAPI document's market-data operations, so a route added
 * there without a request here fails, and one added without compression fails below.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { marketOperations } from '../../src/rest/openapi.market-operations';
import type { DerivativesInput } from '../../src/domain/derivatives';
import { HOUR, MINUTE, T0, iso, loadFixtures } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

const NOW = T0 + 900 * HOUR + 30_000;
const WINDOW = `start=${iso(T0)}&end=${iso(T0 + 100 * HOUR)}`;

/** A request of each data route whose body is well over the 1 KB compression threshold. */
const REQUESTS: Record<string, string> = {
  '/v1/ohlcv': `symbol=BTC-USDT&exchange=spot&timeframe=1h&${WINDOW}`,
  '/v1/funding': `symbol=BTC-USDT&exchange=perp&normalized=true&${WINDOW}`,
  '/v1/derivatives': `symbol=BTC-USDT&exchange=perp&timeframe=1m&start=${iso(T0)}&end=${iso(T0 + HOUR)}`,
  '/v1/multi-asset': `symbols=BTC-USDT,ETH-USDT&exchange=spot&timeframe=1h&field=close&${WINDOW}`,
  '/v1/markets': '',
  '/v1/features': `symbol=BTC-USDT&exchange=spot&timeframe=1h&features=rsi_14,macd&${WINDOW}`,
  '/v1/features/available': '',
  '/v1/quality': 'symbol=BTC-USDT&exchange=spot',
};
/**
 * Bodies under the 1 KB threshold go as they are: for these, the middleware shows itself on an
 * error (a 400 has no other reason to name Accept-Encoding in Vary).
 */
const SMALL = new Set(['/v1/quality']);

describe('compression of the data routes', () => {
  let srv: TestServer;
  let key: string;

  beforeAll(async () => {
    srv = await startTestServer({ clock: () => NOW });
    await loadFixtures(srv.services, NOW);
    key = await srv.key('scale');
    // A perpetual's context for an hour, and the quality scores, so every body is well over 1 KB.
    const series = { id: (await srv.services.store.series.idOf({ exchange: 'perp', symbol: 'BTC-USDT' }))!, symbol: 'BTC-USDT' };
    await srv.services.writer.derivatives([{ series, rows: Array.from({ length: 60 }, (_, i) => contextMinute(T0 + i * MINUTE)) }]);
    await srv.services.quality.computeAll(NOW);
  }, 120_000);
  afterAll(() => srv?.stop());

  it('when the API document lists its data routes, then each has a request here', () => {
    expect(Object.keys(REQUESTS).sort()).toEqual(marketOperations(srv.services.endpoints, srv.services.exchanges).map((o) => o.path).sort());
  });

  it.each(Object.entries(REQUESTS))('when %s is asked with Accept-Encoding, then a body over 1 KB comes gzip or br, the same bytes once decoded', async (path, query) => {
    const url = `${path}?${query}`;
    const plain = await rawGet(srv.url + url, key, 'identity');
    expect([plain.status, plain.encoding, plain.vary?.split(', ').includes('Accept-Encoding')]).toEqual([200, undefined, true]);
    if (SMALL.has(path)) {
      expect(plain.body.length).toBeLessThanOrEqual(1024);
      expect((await rawGet(srv.url + url, key, 'gzip')).encoding).toBeUndefined();
      const refused = await rawGet(srv.url + path, key, 'gzip');
      expect([refused.status, refused.vary]).toEqual([400, 'Accept-Encoding']);
      return;
    }
    expect(plain.body.length).toBeGreaterThan(1024);
    const gzip = await rawGet(srv.url + url, key, 'gzip');
    expect([gzip.status, gzip.encoding]).toEqual([200, 'gzip']);
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    const br = await rawGet(srv.url + url, key, 'br');
    expect([br.status, br.encoding]).toEqual([200, 'br']);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
  });
});

function contextMinute(time: number): DerivativesInput {
  return {
    time,
    openInterestOpen: '1000',
    openInterestHigh: '1010.5',
    openInterestLow: '990.25',
    openInterest: '1005',
    markPrice: '64000.125',
    oraclePrice: '63990.5',
    midPrice: '64001',
    predictedFundingRate: '0.0000125',
    venuePremium: '0.0001',
  };
}

/** A GET through node:http, which leaves the body as it was sent (fetch decodes it). */
function rawGet(url: string, key: string, encoding: string): Promise<{ status: number; encoding: string | undefined; vary: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'X-API-Key': key, 'Accept-Encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
