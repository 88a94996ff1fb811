/** /v1/features (wide feature rows) and /v1/features/available (the catalogue). */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { FeatureReadService } from '../services/feature-read.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { sendCsv } from './csv';
import { parseFormat } from './format';
import { sendJsonText } from './json-text';
import { CATALOGUE_JSON, featureCsvCells, featureCsvColumns, featurePageJson } from './serializers/feature.serializer';

export function featuresRouter(access: AccessService, features: FeatureReadService): Router {
  const router = Router();
  const auth = requireApiKey(access);

  router.get('/v1/features/available', auth, (_req, res) => sendJsonText(res, CATALOGUE_JSON));

  router.get('/v1/features', auth, async (req, res) => {
    if (parseFormat(req.query) === 'csv') {
      const { request, page } = await features.page(principalOf(req), req.query);
      return sendCsv(res, featureCsvColumns(request), page.data, featureCsvCells(request), page.nextStart);
    }
    const { request, page } = await features.pageAsJson(principalOf(req), req.query);
    sendJsonText(res, featurePageJson(request, page));
  });

  return router;
}
