/** /v1/features (wide feature rows, a data route: rest/data-route.ts) and /v1/features/available (the catalogue). */
import { Router } from 'express';
import type { FeatureReadService } from '../services/reads/feature-read.service';
import { requireApiKey } from '../transport/access.middleware';
import { compressed, dataRoute, type DataRouteDeps } from './data-route';
import { sendJsonText } from './json-text';
import { CATALOGUE_JSON, FEATURE_REPRESENTATION } from './serializers/feature.serializer';

export interface FeaturesRouteDeps extends DataRouteDeps {
  features: FeatureReadService;
}

export function featuresRouter(deps: FeaturesRouteDeps): Router {
  const router = Router();
  router.get('/v1/features/available', compressed, requireApiKey(deps.access), (_req, res) => sendJsonText(res, CATALOGUE_JSON));
  dataRoute(router, '/v1/features', deps, (caller, raw) => deps.features.plan(deps.features.parseRequest(caller, raw)), FEATURE_REPRESENTATION);
  return router;
}
