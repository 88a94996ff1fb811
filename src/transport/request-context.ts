/**
 * Per-request state of both transports, built in one place: the request id (a UUID, echoed in
 * X-Request-Id and in every log line of the request), a child logger carrying it, and what the
 * request ended with, for the metrics and the request log line.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { AppError } from '../domain/errors';
import type { Logger } from '../logger';
import type { Admission } from '../services/access/access.service';
import type { Metrics } from '../services/runtime/metrics';

export interface RequestState {
  id: string;
  log: Logger;
  started: number;
  /** The caller's tier once the key is known (metrics label). */
  tier?: string;
  /** What the request ended with, for the metrics: refusals and failures. */
  errors: Array<{ err: AppError; scope: 'request' | 'field' }>;
  /** The admitted caller, once the access service has let the request in. */
  admission?: Admission;
}

declare module 'express-serve-static-core' {
  interface Request {
    ctx: RequestState;
  }
}

/** The metrics label of a request: its route pattern, never the raw path (bounded cardinality). */
function routeOf(req: Request, status: number): string {
  if (req.route?.path) return String(req.route.path);
  if (req.originalUrl.startsWith('/graphql')) return '/graphql';
  return status === 404 ? 'unmatched' : 'other';
}

export function requestContext(logger: Logger, metrics?: Metrics) {
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    const id = randomUUID();
    let child: Logger | undefined;
    req.ctx = {
      id,
      // A child logger costs more than the rest of the request context: build it on first use.
      get log() {
        return (child ??= logger.child({ request_id: id }));
      },
      started: performance.now(),
      errors: [],
    };
    res.setHeader('X-Request-Id', id);
    const observe = (status: number) => {
      if (!metrics) return;
      metrics.observeRequest(req.method, routeOf(req, status), status, (performance.now() - req.ctx.started) / 1000);
      // One count per request and kind: ten GraphQL fields failing on the database are one request.
      const seen = new Set<string>();
      for (const e of req.ctx.errors) {
        const kind = `${e.err.code}|${e.scope}|${e.err.extras.dependency ?? ''}`;
        if (!seen.has(kind)) metrics.errorSeen(e.err, req.ctx.tier, e.scope);
        seen.add(kind);
      }
    };
    // A client that leaves before the response ends is counted as status 499 (nginx's "client
    // closed request"), so aborted requests show up too.
    res.on('close', () => {
      if (!res.writableFinished) observe(499);
    });
    res.on('finish', () => {
      observe(res.statusCode);
      logger.info(
        {
          request_id: id,
          method: req.method,
          // The full path (a mounted router's req.path is relative to its mount point), no query.
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          duration_ms: Math.round((performance.now() - req.ctx.started) * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
