/**
 * The two error edges: REST envelope and GraphQL extensions, for known and unknown errors.
 */
import express from 'express';
import { GraphQLError } from 'graphql';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../src/domain/errors';
import { formatGraphQLError } from '../../src/graphql/errors';
import { createLogger } from '../../src/logger';
import { errorHandler } from '../../src/rest/error-handler';
import { requestContext } from '../../src/transport/request-context';

function capture() {
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
  return { log, text: () => lines.join('') };
}

describe('REST error edge', () => {
  it('when a route throws something unexpected, then 500 DATABASE_ERROR with no internals, and the stack is logged with the request id', async () => {
    const { log, text } = capture();
    const app = express();
    app.use(requestContext(log));
    app.get('/boom', () => {
      throw new Error('relation "secret_table" does not exist at SELECT * FROM secret_table');
    });
    app.get('/known', () => {
      throw new AppError('TIER_LIMIT_EXCEEDED', 'timeframe 1m needs the pro plan; your plan is free', { upgrade_url: 'https://u' });
    });
    app.use(errorHandler());
    const server = app.listen(0);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${base}/boom`);
      expect(res.status).toBe(500);
      const body = await res.text();
      expect(JSON.parse(body)).toEqual({
        error: 'DATABASE_ERROR',
        message: 'internal error; retry with exponential backoff',
        request_id: res.headers.get('x-request-id'),
      });
      expect(body).not.toMatch(/secret_table|SELECT|at /);
      const logged = text().split('\n').find((l) => l.includes('unexpected error'))!;
      expect(JSON.parse(logged)).toMatchObject({ request_id: res.headers.get('x-request-id'), err: { stack: expect.stringContaining('secret_table') } });

      const known = await fetch(`${base}/known`);
      expect(known.status).toBe(403);
      expect(await known.json()).toEqual({
        error: 'TIER_LIMIT_EXCEEDED',
        message: 'timeframe 1m needs the pro plan; your plan is free',
        request_id: known.headers.get('x-request-id'),
        upgrade_url: 'https://u',
      });
    } finally {
      server.close();
    }
  });
});

describe('GraphQL error edge', () => {
  const asResolverError = (original: Error) => new GraphQLError(original.message, { originalError: original, path: ['f'] });

  it('when a resolver throws an AppError, then extensions carry its code and extras', () => {
    const f = formatGraphQLError(
      { message: 'slow down', path: ['f'] },
      asResolverError(new AppError('RATE_LIMIT_EXCEEDED', 'slow down', { retry_after_secs: 7 })),
    );
    expect(f).toEqual({ message: 'slow down', path: ['f'], extensions: { code: 'RATE_LIMIT_EXCEEDED', retry_after_secs: 7 } });
  });

  it('when a resolver throws something unexpected, then DATABASE_ERROR with no internals', () => {
    const f = formatGraphQLError(
      { message: 'relation "x" does not exist', path: ['f'], extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['at x'] } },
      asResolverError(new TypeError('relation "x" does not exist')),
    );
    expect(f).toEqual({ message: 'internal error; retry with exponential backoff', path: ['f'], extensions: { code: 'DATABASE_ERROR' } });
  });

  it('when an argument has the wrong type, then INVALID_PARAMETER; document errors keep their GraphQL code', () => {
    expect(formatGraphQLError({ message: 'bad', extensions: { code: 'BAD_USER_INPUT' } }, new GraphQLError('bad')).extensions).toEqual({
      code: 'INVALID_PARAMETER',
    });
    expect(
      formatGraphQLError({ message: 'x', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }, new GraphQLError('x')).extensions,
    ).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });
});
