/**
 * Express face of the access service, for both transports: authenticate + admit, set the
 * rate-limit headers (on success and on 429), and hand the principal to the REST route or
 * to the GraphQL context.
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

/**
 * Authenticate and admit the request (401, 429, 503 thrown as AppErrors); the result is also
 * kept in `req.access`. The rate-limit headers are set on success and on 429.
 */
export async function admitRequest(access: AccessService, req: Request, res: Response): Promise<Access> {
  try {
    req.access = await access.check(req.header('x-api-key'));
    req.ctx.tier = req.access.principal.tier;
    setHeaders(res, rateLimitHeaders(req.access.quota));
    return req.access;
  } catch (err) {
    if (err instanceof RateLimitedError) {
      req.ctx.tier = err.quota.tier;
      setHeaders(res, rateLimitHeaders(err.quota));
    }
    throw err;
  }
}

export function requireApiKey(access: AccessService) {
  return function requireApiKeyMiddleware(req: Request, res: Response, next: NextFunction): void {
    admitRequest(access, req, res).then(() => next(), next);
  };
}

/** The authenticated caller of a route mounted behind requireApiKey. */
export function principalOf(req: Request) {
  if (!req.access) throw new Error('route is not behind requireApiKey');
  return req.access.principal;
}
