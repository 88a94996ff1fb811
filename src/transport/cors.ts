/** CORS for both transports: any origin may call the API; browsers may read the rate-limit and request-id headers. */
import type { NextFunction, Request, Response } from 'express';
import { EXPOSED_HEADERS } from '../services/access/rate-limit-headers';

export function cors() {
  const exposed = EXPOSED_HEADERS.join(', ');
  return function corsMiddleware(req: Request, res: Response, next: NextFunction): void {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      res.setHeader(
        'Access-Control-Allow-Headers',
        req.header('access-control-request-headers') ?? 'X-API-Key, X-Admin-Token, Content-Type, Authorization',
      );
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
