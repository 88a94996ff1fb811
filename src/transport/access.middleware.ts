/**
 * Express face of the access service, for both transports: authenticate + admit, set the
 * rate-limit headers (on success and on 429), and hand the principal to the REST route or,
 * on POST /graphql, to the GraphQL context.
 */
import type { NextFunction, Request, Response } from 'express';
import { RateLimitedError, type Access, type AccessService } from '../services/access/access.service';
import { rateLimitHeaders } from '../services/access/rate-limit-headers';
import { setHeaders } from './set-headers';

declare module 'express-serve-static-core' {
  interface Request {
    access?: Access;
  }
}

export function requireApiKey(access: AccessService) {
  return async function requireApiKeyMiddleware(req: Request, res: Response, next: NextFunction): Promise<void> {
    try {
      req.access = await access.check(req.header('x-api-key'));
      req.ctx.tier = req.access.principal.tier;
      setHeaders(res, rateLimitHeaders(req.access.quota));
      next();
    } catch (err) {
      if (err instanceof RateLimitedError) {
        req.ctx.tier = err.quota.tier;
        setHeaders(res, rateLimitHeaders(err.quota));
      }
      next(err);
    }
  };
}

/** The authenticated caller of a route mounted behind requireApiKey. */
export function principalOf(req: Request) {
  if (!req.access) throw new Error('route is not behind requireApiKey');
  return req.access.principal;
}
