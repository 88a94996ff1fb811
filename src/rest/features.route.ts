/** /v1/features (wide feature rows) and /v1/features/available (the catalogue). */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { FeatureReadService } from '../services/reads/feature-read.service';
import type { PageTags } from '../services/reads/page-tags.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { sendCsv } from './csv';
import { pageCache, readConditional, sendJsonPage } from './conditional';
import { sendDataframe } from './dataframe.writer';
import { isDataframe, parseFormat } from './format';
import { sendJsonText } from './json-text';
import { featureFrame } from './serializers/dataframe.columns';
import { CATALOGUE_JSON, featureCsvCells, featureCsvColumns, featurePageJson } from './serializers/feature.serializer';

export function featuresRouter(access: AccessService, features: FeatureReadService, tags: PageTags, clock: () => number): Router {
  const router = Router();
  const auth = requireApiKey(access);

  router.get('/v1/features/available', auth, (_req, res) => sendJsonText(res, CATALOGUE_JSON));

  router.get('/v1/features', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const request = features.parseRequest(principalOf(req), req.query);
    const now = clock();
    const cache = pageCache(req, format, request, request.timeframe, now);
    const scope = await features.scope(request, now);
    if (format === 'json') {
      const page = await readConditional(req, res, tags, cache, scope, () => features.pageAsJson(request, now));
      if (page !== null) sendJsonPage(req, res, cache, featurePageJson(request, page));
      return;
    }
    const page = await readConditional(req, res, tags, cache, scope, () => features.page(request, now));
    if (page === null) return;
    if (format === 'csv') {
      return sendCsv(req, res, { columns: featureCsvColumns(request), rows: page.data, cells: featureCsvCells(request), nextStart: page.nextStart }, cache);
    }
    if (isDataframe(format)) return sendDataframe(req, res, format, featureFrame(request, page), cache);
  });

  return router;
}
