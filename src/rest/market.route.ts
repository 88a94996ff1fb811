/** GET /v1/ohlcv, /v1/derivatives, /v1/funding, /v1/multi-asset (data routes: rest/data-route.ts) and /v1/markets. */
import { Router } from 'express';
import type { CandlesService } from '../services/reads/candles.service';
import type { DerivativesService } from '../services/reads/derivatives.service';
import type { FundingService } from '../services/reads/funding.service';
import type { MarketsService } from '../services/reads/markets.service';
import type { MultiAssetService } from '../services/reads/multi-asset.service';
import { requireApiKey } from '../transport/access.middleware';
import { sendJsonPage } from './conditional';
import { compressed, dataRoute, type DataRouteDeps } from './data-route';
import { CANDLE_REPRESENTATION } from './serializers/candle.serializer';
import { DERIVATIVES_REPRESENTATION } from './serializers/derivatives.serializer';
import { FUNDING_REPRESENTATION } from './serializers/funding.serializer';
import { marketsBody } from './serializers/market.serializer';
import { MULTI_ASSET_REPRESENTATION } from './serializers/multi-asset.serializer';

export interface MarketRouteDeps extends DataRouteDeps {
  candles: CandlesService;
  derivatives: DerivativesService;
  funding: FundingService;
  multiAsset: MultiAssetService;
  markets: MarketsService;
}

export function marketRouter(deps: MarketRouteDeps): Router {
  const router = Router();
  const { candles, derivatives, funding, multiAsset, markets } = deps;
  dataRoute(router, '/v1/ohlcv', deps, (caller, raw) => candles.plan(candles.parseRequest(caller, raw)), CANDLE_REPRESENTATION);
  dataRoute(router, '/v1/derivatives', deps, (caller, raw) => derivatives.plan(derivatives.parseRequest(caller, raw)), DERIVATIVES_REPRESENTATION);
  dataRoute(router, '/v1/funding', deps, (caller, raw) => funding.plan(funding.parseRequest(caller, raw)), FUNDING_REPRESENTATION);
  dataRoute(router, '/v1/multi-asset', deps, (caller, raw) => multiAsset.plan(multiAsset.parseRequest(caller, raw)), MULTI_ASSET_REPRESENTATION);
  // Always read (no watermark covers the coverage of every market).
  router.get('/v1/markets', compressed, requireApiKey(deps.access), async (req, res) => {
    const body = Buffer.from(JSON.stringify(marketsBody(await markets.list(req.query))));
    sendJsonPage(req, res, { params: JSON.stringify(req.query), span: null }, body);
  });
  return router;
}
