/** GET /v1/quality: the stored Data Quality Score per timeframe (always read: scores are not watermarked). */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { QualityService } from '../services/derived/quality.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { sendJsonPage } from './conditional';
import { compressed } from './data-route';
import { qualityBody } from './serializers/quality.serializer';

export interface QualityRouteDeps {
  access: AccessService;
  quality: QualityService;
}

export function qualityRouter(deps: QualityRouteDeps): Router {
  const router = Router();
  router.get('/v1/quality', compressed, requireApiKey(deps.access), async (req, res) => {
    const { request, records } = await deps.quality.report(principalOf(req), req.query);
    sendJsonPage(req, res, { params: JSON.stringify(request), span: null }, Buffer.from(JSON.stringify(qualityBody(request, records))));
  });
  return router;
}
