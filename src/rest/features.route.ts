/** /v1/features/*: the catalogue (the feature rows arrive with the features issue). */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { FeaturesService } from '../services/features.service';
import { requireApiKey } from './access.middleware';

export function featuresRouter(access: AccessService, features: FeaturesService): Router {
  const router = Router();
  router.get('/v1/features/available', requireApiKey(access), (_req, res) => {
    res.type('application/json').send(features.catalogueJson());
  });
  return router;
}
