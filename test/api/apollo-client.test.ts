/**
 * The GraphQL API through Apollo Client 4, as a dashboard uses it: a query over HTTP, every kind
 * of refusal read as GraphQL errors with their codes and extras (the service answers
 * `application/graphql-response+json` to clients that accept it, whatever the status), and a
 * subscription through GraphQLWsLink with its events and its refusal.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { manualClock, startTestServer, type TestServer } from '../helpers/server';
import { eventually } from '../helpers/ws-client';

const T = Date.UTC(2026, 2, 10, 12, 30, 18); // 42 s before the next minute
// GraphQLWsLink reads the platform's WebSocket (a browser's, Node 22's); Node 20 has none.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
const ME = gql`
  query Me {
    me {
      tier
    }
  }
`;

describe('Apollo Client 4 against /graphql', () => {
  const clock = manualClock(T);
  let srv: TestServer;
  const clients: Array<ApolloClient> = [];
  const disposers: Array<() => unknown> = [];

  const http = (key: string | undefined) => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${srv.url}/graphql`, headers: key ? { 'X-API-Key': key } : {} }),
      cache: new InMemoryCache(),
      defaultOptions: { query: { fetchPolicy: 'no-cache' } },
    });
    clients.push(client);
    return client;
  };

  /** The first error of a refused operation, as Apollo Client hands it over. */
  async function refusal(run: Promise<unknown>) {
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(CombinedGraphQLErrors.is(err)).toBe(true);
    return (err as CombinedGraphQLErrors).errors[0];
  }

  beforeAll(async () => {
    srv = await startTestServer({ clock: clock.now, env: { UPGRADE_URL: 'https://example.com/up' } });
    await srv.services.store.series.ensure({ exchange: 'perp', symbol: 'BTC-USDT' });
  });
  afterAll(async () => {
    for (const c of clients) c.stop();
    await Promise.all(disposers.map((d) => d()));
    await srv?.stop();
  });

  it('when a query is sent with a key, then data comes back', async () => {
    const { data } = await http(await srv.key('pro')).query({ query: ME });
    expect(data).toEqual({ me: { __typename: 'Account', tier: 'pro' } });
  });

  it('when the key is missing (HTTP 401), then Apollo Client reads UNAUTHORIZED and the request id', async () => {
    const e = await refusal(http(undefined).query({ query: ME }));
    expect(e.message).toBe('missing X-API-Key header');
    expect(e.extensions).toEqual({ code: 'UNAUTHORIZED', request_id: expect.any(String) });
  });

  it('when the minute quota is used up (HTTP 429), then RATE_LIMIT_EXCEEDED with retry_after_secs', async () => {
    const client = http(await srv.key('free'));
    for (let i = 0; i < 10; i++) await client.query({ query: ME });
    const e = await refusal(client.query({ query: ME }));
    expect(e.extensions).toEqual({ code: 'RATE_LIMIT_EXCEEDED', retry_after_secs: 42, request_id: expect.any(String) });
  });

  it('when the plan does not allow the timeframe (a field error), then TIER_LIMIT_EXCEEDED with upgrade_url', async () => {
    const e = await refusal(
      http(await srv.key('free')).query({
        query: gql`
          {
            market(exchange: "perp", symbol: "BTC-USDT") {
              candles(timeframe: "1m", start: "2026-03-10") {
                count
              }
            }
          }
        `,
      }),
    );
    expect(e.extensions).toEqual({ code: 'TIER_LIMIT_EXCEEDED', upgrade_url: 'https://example.com/up', request_id: expect.any(String) });
  });

  it('when the document is too costly (HTTP 400), then QUERY_TOO_COMPLEX', async () => {
    const e = await refusal(
      http(await srv.key('pro')).query({
        query: gql`
          {
            markets {
              candles(timeframe: "1h", start: "2024-01-01", limit: 10000) {
                count
              }
              funding(start: "2024-01-01") {
                count
              }
            }
          }
        `,
      }),
    );
    expect(e.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('when a subscription runs through GraphQLWsLink, then its events arrive, and a refusal is read with its code', async () => {
    const key = await srv.key('pro');
    const ws = createClient({ url: `${srv.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { apiKey: key }, retryAttempts: 0 });
    disposers.push(() => ws.dispose());
    const client = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
    clients.push(client);
    const events: unknown[] = [];
    const sub = client
      .subscribe({
        query: gql`
          subscription {
            candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1h") {
              time
              close
            }
          }
        `,
      })
      .subscribe({ next: (r) => events.push(r.data) });
    disposers.push(() => sub.unsubscribe());
    // Published until heard (the subscription opens asynchronously).
    const probe = { time: '2026-03-10T11:00:00+00:00', open: '1', high: '1', low: '1', close: '1.000000', volume: '1' };
    for (let i = 0; i < 100 && events.length === 0; i++) {
      await srv.services.events.publisher.publish({ type: 'candle', exchange: 'perp', symbol: 'BTC-USDT', timeframe: '1h', candles: [probe] });
      await eventually(() => events.length > 0, 50);
    }
    expect(events[0]).toEqual({ candleClosed: { __typename: 'Candle', time: probe.time, close: '1.000000' } });

    const freeWs = createClient({ url: `${srv.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { apiKey: await srv.key('free') }, retryAttempts: 0 });
    disposers.push(() => freeWs.dispose());
    const freeClient = new ApolloClient({ link: new GraphQLWsLink(freeWs), cache: new InMemoryCache() });
    clients.push(freeClient);
    const errors: unknown[] = [];
    freeClient
      .subscribe({
        query: gql`
          subscription {
            candleClosed(exchange: "perp", symbol: "BTC-USDT", timeframe: "1m") {
              time
            }
          }
        `,
      })
      .subscribe({ next: (r) => r.error && errors.push(r.error), error: (e) => errors.push(e) });
    expect(await eventually(() => errors.length > 0)).toBe(true);
    expect(CombinedGraphQLErrors.is(errors[0])).toBe(true);
    expect((errors[0] as CombinedGraphQLErrors).errors[0].extensions).toEqual({
      code: 'TIER_LIMIT_EXCEEDED',
      upgrade_url: 'https://example.com/up',
      request_id: expect.any(String),
    });
  });
});
