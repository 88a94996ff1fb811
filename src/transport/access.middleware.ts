/**
 * The HTTP face of the access service, for both transports: admit the request (authenticate
 * and count it), set the rate-limit headers (on success and on 429), and keep the admission
 * for the REST route or the GraphQL context.
 */
import type { NextFunction, Request, Response } from 'express';
import { RateLimitedError, type AccessService, type Admission } from '../services/access/access.service';
import type { Principal } from '../services/access/principal';
import { rateLimitHeaders } from '../services/access/rate-limit-headers';
import { setHeaders } from './set-headers';

/**
 * Admit the request (401, 429, 503 thrown as AppErrors); the admission is also kept in
 * `req.ctx.admission`. The rate-limit headers are set on success and on 429.
 */
export async function admitRequest(access: AccessService, req: Request, res: Response): Promise<Admission> {
  try {
    const admission = await access.admit(req.header('x-api-key'));
    req.ctx.admission = admission;
    req.ctx.tier = admission.principal.tier;
    setHeaders(res, rateLimitHeaders(admission.quota));
    return admission;
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
export function principalOf(req: Request): Principal {
  if (!req.ctx.admission) throw new Error('route is not behind requireApiKey');
  return req.ctx.admission.principal;
}
