/** /v1/features (wide feature rows) and /v1/features/available (the catalogue). */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { FeatureReadService } from '../services/feature-read.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { sendCsv } from './csv';
import { pageCache, sendJsonPage } from './conditional';
import { sendDataframe } from './dataframe.writer';
import { isDataframe, parseFormat } from './format';
import { sendJsonText } from './json-text';
import { featureFrame } from './serializers/dataframe.columns';
import { CATALOGUE_JSON, featureCsvCells, featureCsvColumns, featurePageJson } from './serializers/feature.serializer';

export function featuresRouter(access: AccessService, features: FeatureReadService, clock: () => number): Router {
  const router = Router();
  const auth = requireApiKey(access);

  router.get('/v1/features/available', auth, (_req, res) => sendJsonText(res, CATALOGUE_JSON));

  router.get('/v1/features', auth, async (req, res) => {
    const format = parseFormat(req.query);
    if (format === 'csv') {
      const { request, page } = await features.page(principalOf(req), req.query);
      const cache = pageCache(req, format, request, request.timeframe, clock());
      return sendCsv(req, res, { columns: featureCsvColumns(request), rows: page.data, cells: featureCsvCells(request), nextStart: page.nextStart }, cache);
    }
    if (isDataframe(format)) {
      const { request, page } = await features.page(principalOf(req), req.query);
      return sendDataframe(req, res, format, featureFrame(request, page), pageCache(req, format, request, request.timeframe, clock()));
    }
    const { request, page } = await features.pageAsJson(principalOf(req), req.query);
    sendJsonPage(req, res, pageCache(req, format, request, request.timeframe, clock()), featurePageJson(request, page));
  });

  return router;
}
