/** GET /v1/ohlcv, /v1/derivatives, /v1/funding, /v1/multi-asset and /v1/markets: the service's page (or a 304), then a serializer. */
import { Router } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { CandlesService } from '../services/reads/candles.service';
import type { DerivativesService } from '../services/reads/derivatives.service';
import type { FundingService } from '../services/reads/funding.service';
import type { MarketsService } from '../services/reads/markets.service';
import type { MultiAssetService } from '../services/reads/multi-asset.service';
import type { PageTags } from '../services/reads/page-tags.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { sendCsv } from './csv';
import { isDataframe, parseFormat } from './format';
import { pageCache, readConditional, sendJsonPage } from './conditional';
import { sendDataframe } from './dataframe.writer';
import { candleCsvCells, candleCsvColumns, candlePageJson } from './serializers/candle.serializer';
import { candleFrame, derivativesFrame, fundingFrame, multiAssetFrame } from './serializers/dataframe.columns';
import { DERIVATIVES, derivativesPageJson } from './serializers/derivatives.serializer';
import { fundingCsvCells, fundingCsvColumns, fundingPageJson } from './serializers/funding.serializer';
import { marketsBody } from './serializers/market.serializer';
import { multiAssetCsvCells, multiAssetCsvColumns, multiAssetPageJson } from './serializers/multi-asset.serializer';

export interface MarketRoutesDeps {
  access: AccessService;
  candles: CandlesService;
  derivatives: DerivativesService;
  funding: FundingService;
  multiAsset: MultiAssetService;
  markets: MarketsService;
  tags: PageTags;
  clock: () => number;
}

export function marketRouter(deps: MarketRoutesDeps): Router {
  const router = Router();
  const auth = requireApiKey(deps.access);

  // Each data route: validate, then the page through its write watermark (null: a 304 was sent).
  router.get('/v1/ohlcv', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const request = deps.candles.parseRequest(principalOf(req), req.query);
    const now = deps.clock();
    const cache = pageCache(req, format, request, request.timeframe, now);
    const scope = await deps.candles.scope(request, now);
    if (format === 'json') {
      const page = await readConditional(req, res, deps.tags, cache, scope, () => deps.candles.pageAsJson(request, now));
      if (page !== null) sendJsonPage(req, res, cache, candlePageJson(request, page));
      return;
    }
    const page = await readConditional(req, res, deps.tags, cache, scope, () => deps.candles.page(request, now));
    if (page === null) return;
    if (format === 'csv') {
      return sendCsv(req, res, { columns: candleCsvColumns(request), rows: page.data, cells: candleCsvCells(request), nextStart: page.nextStart }, cache);
    }
    if (isDataframe(format)) return sendDataframe(req, res, format, candleFrame(request, page), cache);
  });

  router.get('/v1/derivatives', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const request = deps.derivatives.parseRequest(principalOf(req), req.query);
    const now = deps.clock();
    const cache = pageCache(req, format, request, request.timeframe, now);
    const page = await readConditional(req, res, deps.tags, cache, await deps.derivatives.scope(request, now), () => deps.derivatives.page(request, now));
    if (page === null) return;
    if (format === 'csv') return sendCsv(req, res, { columns: DERIVATIVES.names, rows: page.data, cells: DERIVATIVES.csvCells, nextStart: page.nextStart }, cache);
    if (isDataframe(format)) return sendDataframe(req, res, format, derivativesFrame(request, page), cache);
    sendJsonPage(req, res, cache, derivativesPageJson(request, page));
  });

  router.get('/v1/funding', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const request = deps.funding.parseRequest(principalOf(req), req.query);
    const cache = pageCache(req, format, request, 'funding', deps.clock());
    const page = await readConditional(req, res, deps.tags, cache, await deps.funding.scope(request), () => deps.funding.page(request));
    if (page === null) return;
    if (format === 'csv') {
      return sendCsv(req, res, { columns: fundingCsvColumns(request), rows: page.data, cells: fundingCsvCells(request), nextStart: page.nextStart }, cache);
    }
    if (isDataframe(format)) return sendDataframe(req, res, format, fundingFrame(request, page), cache);
    sendJsonPage(req, res, cache, fundingPageJson(request, page));
  });

  router.get('/v1/multi-asset', auth, async (req, res) => {
    const format = parseFormat(req.query);
    const request = deps.multiAsset.parseRequest(principalOf(req), req.query);
    const now = deps.clock();
    const cache = pageCache(req, format, request, request.timeframe, now);
    const scope = await deps.multiAsset.scope(request, now);
    if (format === 'json') {
      const rows = await readConditional(req, res, deps.tags, cache, scope, () => deps.multiAsset.pageAsJson(request, now));
      if (rows !== null) sendJsonPage(req, res, cache, multiAssetPageJson(request, rows));
      return;
    }
    const page = await readConditional(req, res, deps.tags, cache, scope, () => deps.multiAsset.rows(request, now));
    if (page === null) return;
    if (format === 'csv') {
      return sendCsv(req, res, { columns: multiAssetCsvColumns(request), rows: page.data, cells: multiAssetCsvCells(request), nextStart: page.nextStart }, cache);
    }
    if (isDataframe(format)) return sendDataframe(req, res, format, multiAssetFrame(request, page), cache);
  });

  router.get('/v1/markets', auth, async (req, res) => {
    const body = JSON.stringify(marketsBody(await deps.markets.list(req.query)));
    sendJsonPage(req, res, { params: JSON.stringify(req.query), span: null }, body);
  });

  return router;
}
