/** GET /v1/quality: the stored Data Quality Score per timeframe. */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { QualityService } from '../services/derived/quality.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { sendJsonPage } from './conditional';
import { qualityBody } from './serializers/quality.serializer';

export function qualityRouter(access: AccessService, quality: QualityService): Router {
  const router = Router();
  router.get('/v1/quality', requireApiKey(access), async (req, res) => {
    const { request, records } = await quality.report(principalOf(req), req.query);
    sendJsonPage(req, res, { params: JSON.stringify(request), span: null }, JSON.stringify(qualityBody(request, records)));
  });
  return router;
}
