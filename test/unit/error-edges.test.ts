/**
 * The two error edges: REST envelope and GraphQL extensions, for known and unknown errors.
 */
import express from 'express';
import { GraphQLError } from 'graphql';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../src/domain/errors';
import { errorBoundary, formatGraphQLError } from '../../src/graphql/errors';
import type { GqlContext } from '../../src/graphql/context';
import { createLogger } from '../../src/logger';
import { errorHandler } from '../../src/rest/error-handler';
import { requestContext } from '../../src/rest/request-context';

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
  const ctx = (log = createLogger('silent')) => ({ requestId: 'req-1', log }) as unknown as GqlContext;
  const run = (err: unknown, c = ctx()) =>
    errorBoundary({ context: c, args: {}, info: {} as never, root: undefined }, () => Promise.reject(err));

  it('when a resolver throws an AppError, then extensions carry code, request_id and extras', async () => {
    const err = await run(new AppError('RATE_LIMIT_EXCEEDED', 'slow down', { retry_after_secs: 7 })).catch((e) => e);
    expect(err).toBeInstanceOf(GraphQLError);
    expect(err.extensions).toEqual({ code: 'RATE_LIMIT_EXCEEDED', request_id: 'req-1', retry_after_secs: 7 });
  });

  it('when a resolver throws something unexpected, then DATABASE_ERROR is returned and the error logged', async () => {
    const { log, text } = capture();
    const err = await run(new TypeError('cannot read x of undefined'), ctx(log)).catch((e) => e);
    expect(err.message).toBe('internal error; retry with exponential backoff');
    expect(err.extensions).toEqual({ code: 'DATABASE_ERROR', request_id: 'req-1' });
    expect(text()).toContain('cannot read x of undefined');
  });

  it('when Apollo formats an unclassified error, then it is masked; stack traces never leave', () => {
    expect(formatGraphQLError({ message: 'boom at x.js:1', extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['a'] } })).toEqual({
      message: 'internal error; retry with exponential backoff',
      extensions: { code: 'DATABASE_ERROR' },
    });
    expect(formatGraphQLError({ message: 'bad', extensions: { code: 'BAD_USER_INPUT' } }).extensions).toEqual({ code: 'INVALID_PARAMETER' });
  });
});
