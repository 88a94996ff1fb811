/** GET /v1/ohlcv, /v1/funding, /v1/multi-asset and /v1/markets: one service call each, then a serializer. */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { CandlesService } from '../services/candles.service';
import type { FundingService } from '../services/funding.service';
import type { MarketsService } from '../services/markets.service';
import type { MultiAssetService } from '../services/multi-asset.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { sendCsv } from './csv';
import { parseFormat } from './format';
import { sendJsonText } from './json-text';
import { CANDLE, candlePageJson } from './serializers/candle.serializer';
import { fundingCsvCells, fundingCsvColumns, fundingPageJson } from './serializers/funding.serializer';
import { marketsBody } from './serializers/market.serializer';
import { multiAssetCsvCells, multiAssetCsvColumns, multiAssetPageJson } from './serializers/multi-asset.serializer';

export interface MarketRoutesDeps {
  access: AccessService;
  candles: CandlesService;
  funding: FundingService;
  multiAsset: MultiAssetService;
  markets: MarketsService;
}

export function marketRouter(d: MarketRoutesDeps): Router {
  const router = Router();
  const auth = requireApiKey(d.access);

  router.get('/v1/ohlcv', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const { request, page } = await d.candles.page(principalOf(req), req.query);
    if (format === 'csv') return sendCsv(res, CANDLE.names, page.data, CANDLE.csvCells, page.nextStart);
    sendJsonText(res, candlePageJson(request, page));
  });

  router.get('/v1/funding', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const { request, page } = await d.funding.page(principalOf(req), req.query);
    if (format === 'csv') return sendCsv(res, fundingCsvColumns(request), page.data, fundingCsvCells(request), page.nextStart);
    sendJsonText(res, fundingPageJson(request, page));
  });

  router.get('/v1/multi-asset', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const { request, page } = await d.multiAsset.page(principalOf(req), req.query);
    if (format === 'csv') return sendCsv(res, multiAssetCsvColumns(request), page.data, multiAssetCsvCells(request), page.nextStart);
    sendJsonText(res, multiAssetPageJson(request, page));
  });

  router.get('/v1/markets', auth, async (req, res) => {
    res.json(marketsBody(await d.markets.list(req.query)));
  });

  return router;
}
