/**
 * Per-request state built in one place: the request id (a UUID, echoed in X-Request-Id and
 * in every log line of the request) and a child logger carrying it.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';

export interface RequestState {
  id: string;
  log: Logger;
  started: number;
}

declare module 'express-serve-static-core' {
  interface Request {
    ctx: RequestState;
  }
}

export function requestContext(logger: Logger) {
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
    };
    res.setHeader('X-Request-Id', id);
    res.on('finish', () => {
      logger.info(
        {
          request_id: id,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          duration_ms: Math.round((performance.now() - req.ctx.started) * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
