/** /v1/auth/keys: create (admin), list and revoke (the key's own user). */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../domain/errors';
import type { AccessService } from '../services/access/access.service';
import type { KeysService } from '../services/access/keys.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { API_KEY_INFO, KEY_REVOCATION, NEW_API_KEY } from './serializers/api-key.serializer';
import { parseNewKeyBody } from './serializers/new-key.body';

const BODY_LIMIT = '16kb';

function requireJson(req: Request, _res: Response, next: NextFunction): void {
  if (!req.is('application/json')) {
    next(new AppError('INVALID_PARAMETER', 'body: Content-Type must be application/json', { parameter: 'body' }));
    return;
  }
  next();
}

export interface KeysRouteDeps {
  access: AccessService;
  keys: KeysService;
}

export function keysRouter({ access, keys }: KeysRouteDeps): Router {
  const router = Router();

  router.post(
    '/v1/auth/keys',
    (req, _res, next) => {
      access.authenticateAdmin(req.header('x-admin-token'));
      next();
    },
    requireJson,
    express.json({ limit: BODY_LIMIT, strict: true, type: () => true }),
    async (req, res) => {
      const body = req.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new AppError('INVALID_PARAMETER', 'body: must be a JSON object', { parameter: 'body' });
      }
      res.status(201).json(NEW_API_KEY.render(await keys.create(parseNewKeyBody(body))));
    },
  );

  router.get('/v1/auth/keys', requireApiKey(access), async (req, res) => {
    res.json({ keys: (await keys.list(principalOf(req))).map(API_KEY_INFO.render) });
  });

  router.delete('/v1/auth/keys/:key_hash', requireApiKey(access), async (req, res) => {
    res.json(KEY_REVOCATION.render(await keys.revoke(principalOf(req), String(req.params.key_hash))));
  });

  return router;
}
