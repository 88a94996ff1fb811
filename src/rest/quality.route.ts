/** GET /v1/quality: the stored Data Quality Score per timeframe, as the spec shapes it. */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { QualityService } from '../services/quality.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';

export function qualityRouter(access: AccessService, quality: QualityService): Router {
  const router = Router();
  router.get('/v1/quality', requireApiKey(access), async (req, res) => {
    const r = await quality.report(principalOf(req), req.query);
    res.json({
      exchange: r.exchange,
      symbol: r.symbol,
      timeframes: Object.fromEntries(r.timeframes.map((t) => [t.timeframe, { dqs: t.dqs, computed_at: t.computed_at, components: t.components }])),
    });
  });
  return router;
}
