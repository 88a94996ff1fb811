/** CORS for both transports: any origin may call the API; browsers may read the rate-limit and request-id headers. */
import type { NextFunction, Request, Response } from 'express';
import { EXPOSED_HEADERS } from '../services/access/rate-limit-headers';

export function cors() {
  // And the data routes' own: the next page of a CSV page, and the tag a browser client
  // revalidates with (If-None-Match, answered 304).
  const exposed = [...EXPOSED_HEADERS, 'X-Next-Start', 'ETag'].join(', ');
  return function corsMiddleware(req: Request, res: Response, next: NextFunction): void {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      res.setHeader(
        'Access-Control-Allow-Headers',
        req.header('access-control-request-headers') ?? 'X-API-Key, X-Admin-Token, Content-Type, Authorization, If-None-Match',
      );
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
