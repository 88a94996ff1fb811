/**
 * /graphiql: GraphiQL 5 from the project's own dependencies, for networks without internet
 * (Apollo Sandbox at /graphql loads from Apollo's CDN). Queries go to /graphql with the key
 * as X-API-Key; subscriptions over graphql-ws on the same path with the key in
 * connection_init. The key comes from the field above the editor (kept in sessionStorage,
 * shared with /dashboard); an X-API-Key in the headers editor wins over it.
 */
import { createGraphiQLFetcher, type Fetcher, type FetcherOpts, type FetcherParams } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { GraphQLError } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { keyHint, socketUrl, storedKey, storeKey } from '../shared/api-key';

/** URLs of the Monaco workers, bundled beside this script (scripts/build-web.js). */
declare const __MONACO_WORKERS__: { editor: string; json: string; graphql: string };
(globalThis as unknown as { MonacoEnvironment: unknown }).MonacoEnvironment = {
  getWorker(_id: string, label: string) {
    return new Worker(label === 'json' ? __MONACO_WORKERS__.json : label === 'graphql' ? __MONACO_WORKERS__.graphql : __MONACO_WORKERS__.editor);
  },
};

/** One HTTP fetcher and one socket per key (the socket's key is fixed at connection_init). */
let current: { key: string; fetcher: Fetcher; ws: Client } | null = null;
function fetcherFor(key: string): Fetcher {
  if (current?.key === key) return current.fetcher;
  void current?.ws.dispose();
  const ws = createClient({ url: socketUrl('/graphql'), connectionParams: { apiKey: key }, lazy: true, retryAttempts: 3 });
  current = { key, ws, fetcher: createGraphiQLFetcher({ url: '/graphql', headers: { 'X-API-Key': key }, wsClient: ws }) };
  return current.fetcher;
}

function makeFetcher(fieldKey: string): Fetcher {
  return (params: FetcherParams, opts?: FetcherOpts) => {
    const headers: Record<string, unknown> = { ...(opts?.headers ?? {}) };
    let key = fieldKey;
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() !== 'x-api-key') continue;
      if (typeof headers[name] === 'string' && headers[name]) key = headers[name] as string;
      delete headers[name];
    }
    if (!key) {
      return Promise.resolve({ errors: [new GraphQLError('Enter your API key (qp_…) in the field above, or as X-API-Key in the headers editor.', { extensions: { code: 'UNAUTHORIZED' } })] });
    }
    return fetcherFor(key)(params, { ...opts, headers });
  };
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString().slice(0, 14) + '00:00Z';
const DEFAULT_QUERY = `# Market data GraphQL, offline. Enter your API key above, then run with Ctrl-Enter.
# The schema is in the Docs panel (left). Live updates: subscription { candleClosed(...) { ... } }

query LatestCandles {
  markets { exchange symbol }
  market(exchange: "perp", symbol: "BTC-USDT") {
    candles(timeframe: "1h", start: "${hoursAgo(6)}", limit: 6) {
      nextStart
      data { time open high low close volume }
    }
    quality(timeframe: "1h") { dqs band }
  }
}
`;

const root = createRoot(document.getElementById('graphiql') as HTMLElement);
function render(key: string): void {
  root.render(
    createElement(GraphiQL, {
      fetcher: makeFetcher(key),
      defaultQuery: DEFAULT_QUERY,
      defaultEditorToolsVisibility: 'headers',
      defaultHeaders: '{}',
      key,
    }),
  );
}

const form = document.getElementById('key-form') as HTMLFormElement;
const input = document.getElementById('key-input') as HTMLInputElement;
const hint = document.getElementById('key-hint') as HTMLElement;
function useKey(key: string): void {
  storeKey(key || null);
  hint.textContent = key ? `using ${keyHint(key)}` : 'no key';
  render(key);
}
form.addEventListener('submit', (e) => {
  e.preventDefault();
  useKey(input.value.trim());
});
input.value = storedKey() ?? '';
useKey(input.value);
