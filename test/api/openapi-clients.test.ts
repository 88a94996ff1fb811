/**
 * The OpenAPI document as client generators read it: redocly's recommended rules pass with no
 * error and no warning; openapi-typescript turns it into types that a typed client
 * (openapi-fetch) compiles against, with JSON bodies typed by default and `normalized` a
 * boolean; and that client, run against the server, gets the bodies the types promise.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import createClient from 'openapi-fetch';
import ts from 'typescript';
import { HOUR, T0, iso, loadFixtures } from '../helpers/fixtures';
import type { Json } from '../helpers/json';
import { startTestServer, type TestServer } from '../helpers/server';

const NOW = T0 + 900 * HOUR + 30_000;

/** A program using the generated types as a developer would; tsc must accept it as it is. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './api';

export async function probe(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': key } });
  const candles = await client.GET('/v1/ohlcv', { params: { query: { symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1h', start: '2024-01-01', limit: 5 } } });
  const close: string = candles.data!.data[0].close;
  const next: string | null = candles.data!.next_start;
  const funding = await client.GET('/v1/funding', { params: { query: { symbol: 'BTC-USDT', exchange: 'perp', start: '2024-01-01', normalized: true } } });
  const z: string | null | undefined = funding.data!.data[0].rate_normalized;
  const refused: string | undefined = (await client.GET('/v1/quality', { params: { query: { symbol: 'NOPE-USDT', exchange: 'spot' } } })).error?.error;
  // @ts-expect-error normalized is a boolean, not the text "true"
  await client.GET('/v1/funding', { params: { query: { symbol: 'BTC-USDT', exchange: 'perp', start: '2024-01-01', normalized: 'true' } } });
  // @ts-expect-error symbol is required
  await client.GET('/v1/ohlcv', { params: { query: { exchange: 'perp', timeframe: '1h', start: '2024-01-01' } } });
  return { close, next, z, refused };
}
`;

describe('the OpenAPI document for generated clients', () => {
  let srv: TestServer;
  let key: string;
  let doc: Json;
  beforeAll(async () => {
    srv = await startTestServer({ clock: () => NOW });
    await loadFixtures(srv.services, NOW);
    key = await srv.key('pro');
    doc = (await (await fetch(`${srv.url}/v1/openapi.json`)).json()) as Json;
  }, 120_000);
  afterAll(() => srv?.stop());

  it("when redocly's recommended rules lint it, then there is no error and no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  });

  it('when openapi-typescript generates its types, then an openapi-fetch client typed by them compiles, JSON bodies typed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mds-openapi-'));
    // Its command, as users run it (its CommonJS build cannot load an ES-module dependency under jest).
    writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
    const cli = path.join(path.dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
    execFileSync(process.execPath, [cli, path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.d.ts')], { stdio: 'pipe' });
    writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    const program = ts.createProgram([path.join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      baseUrl: dir,
      paths: { 'openapi-fetch': [path.dirname(require.resolve('openapi-fetch/package.json'))] },
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 60_000);

  it('when that client calls the server, then it gets the bodies the types describe', async () => {
    const client = createClient<Record<string, never>>({ baseUrl: srv.url, headers: { 'X-API-Key': key } });
    const get = (p: string, query: Record<string, unknown>) => (client as unknown as { GET(p: string, o: object): Promise<{ data?: Json; error?: Json; response: Response }> }).GET(p, { params: { query } });
    const candles = await get('/v1/ohlcv', { symbol: 'BTC-USDT', exchange: 'perp', timeframe: '1h', start: iso(T0), limit: 5 });
    expect(candles.data).toMatchObject({ count: 5, next_start: expect.any(String), data: expect.arrayContaining([expect.objectContaining({ close: expect.any(String) })]) });
    const funding = await get('/v1/funding', { symbol: 'BTC-USDT', exchange: 'perp', start: iso(T0 + 720 * HOUR), end: iso(T0 + 721 * HOUR), normalized: true });
    expect(funding.data!.data[0]).toEqual({ time: expect.any(String), rate: expect.any(String), rate_normalized: expect.any(String), premium: expect.any(String) });
    const multi = await get('/v1/multi-asset', { symbols: ['ETH-USDT', 'SOL-USDT'], exchange: 'spot', timeframe: '1m', field: 'close', start: iso(T0), end: iso(T0) });
    expect(multi.data!.symbols).toEqual(['ETH-USDT', 'SOL-USDT']);
    const refused = await get('/v1/quality', { symbol: 'NOPE-USDT', exchange: 'spot' });
    expect(refused.error).toMatchObject({ error: 'QUALITY_NOT_FOUND', request_id: refused.response.headers.get('x-request-id') });
  });
});
