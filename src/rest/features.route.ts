/** /v1/features (wide feature rows) and /v1/features/available (the catalogue). */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { FeaturesService } from '../services/features.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { pageJson } from './json';
import { sendCsv, wantsCsv } from './csv';

export function featuresRouter(access: AccessService, features: FeaturesService): Router {
  const router = Router();
  const auth = requireApiKey(access);

  router.get('/v1/features/available', auth, (_req, res) => {
    res.type('application/json').send(features.catalogueJson());
  });

  router.get('/v1/features', auth, async (req, res) => {
    const csv = wantsCsv(req.query);
    const q = features.featureQuery(principalOf(req), req.query);
    if (csv) {
      const [page] = await features.featurePages([q]);
      const columns = ['time', ...q.names];
      return await sendCsv(res, columns, page.data.map((r) => columns.map((c) => r[c])), page.next_start);
    }
    const p = await features.featurePageJson(q);
    res.type('application/json').send(
      pageJson({ symbol: q.symbol, exchange: q.exchange, timeframe: q.timeframe, features: q.names, count: p.count, next_start: p.next_start }, p.rows),
    );
  });

  return router;
}
