/** GET /v1/ohlcv, /v1/funding, /v1/multi-asset and /v1/markets: thin adapters over MarketDataService. */
import { Router, type Response } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { MarketDataService } from '../services/market-data.service';
import { principalOf, requireApiKey } from './access.middleware';
import { candleJson, pageJson, rowJson } from './json';
import { optional } from '../domain/query-params';

const FUNDING_KEYS = ['time', 'rate', 'rate_normalized', 'premium'] as const;

function sendJson(res: Response, body: string): void {
  res.type('application/json').send(body);
}

export function marketRouter(access: AccessService, market: MarketDataService): Router {
  const router = Router();
  const auth = requireApiKey(access);

  router.get('/v1/ohlcv', auth, async (req, res) => {
    const q = market.candleQuery(principalOf(req), req.query);
    const [p] = await market.candlePages([q]);
    sendJson(
      res,
      pageJson(
        { symbol: q.symbol, exchange: q.exchange, timeframe: q.timeframe, count: p.count, next_start: p.next_start },
        p.data.map(candleJson),
      ),
    );
  });

  router.get('/v1/funding', auth, async (req, res) => {
    const q = market.fundingQuery(principalOf(req), req.query);
    const [p] = await market.fundingPages([q]);
    sendJson(
      res,
      pageJson(
        { symbol: q.symbol, exchange: q.exchange, count: p.count, next_start: p.next_start },
        p.data.map((r) => rowJson(r as unknown as Record<string, string | null>, FUNDING_KEYS)),
      ),
    );
  });

  router.get('/v1/multi-asset', auth, async (req, res) => {
    const q = market.multiAssetQuery(principalOf(req), req.query);
    const p = await market.multiAsset(q);
    sendJson(
      res,
      pageJson(
        { symbols: q.symbols, exchange: q.exchange, timeframe: q.timeframe, field: q.field, count: p.count, next_start: p.next_start },
        p.data.map((r) => `{"time":"${r.time}"${r.values.map(([s, v]) => `,"${s}":"${v}"`).join('')}}`),
      ),
    );
  });

  router.get('/v1/markets', auth, async (req, res) => {
    res.json({ markets: await market.markets(optional(req.query, 'exchange')) });
  });

  return router;
}
