/** GET /v1/ohlcv, /v1/funding, /v1/multi-asset and /v1/markets: thin adapters over MarketDataService. */
import { Router, type Response } from 'express';
import type { AccessService } from '../services/access/access.service';
import type { MarketDataService } from '../services/market-data.service';
import { principalOf, requireApiKey } from '../transport/access.middleware';
import { candleJson, pageJson, rowJson } from './json';
import { sendCsv, wantsCsv } from './csv';

const CANDLE_KEYS = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;
const FUNDING_KEYS = ['time', 'rate', 'rate_normalized', 'premium'] as const;

function sendJson(res: Response, body: string): void {
  res.type('application/json').send(body);
}

export function marketRouter(access: AccessService, market: MarketDataService): Router {
  const router = Router();
  const auth = requireApiKey(access);

  router.get('/v1/ohlcv', auth, async (req, res) => {
    const csv = wantsCsv(req.query);
    const q = market.candleQuery(principalOf(req), req.query);
    const [p] = await market.candlePages([q]);
    if (csv) return await sendCsv(res, CANDLE_KEYS, p.data.map((r) => CANDLE_KEYS.map((k) => r[k])), p.next_start);
    sendJson(
      res,
      pageJson(
        { symbol: q.symbol, exchange: q.exchange, timeframe: q.timeframe, count: p.count, next_start: p.next_start },
        p.data.map(candleJson),
      ),
    );
  });

  router.get('/v1/funding', auth, async (req, res) => {
    const csv = wantsCsv(req.query);
    const q = market.fundingQuery(principalOf(req), req.query);
    const [p] = await market.fundingPages([q]);
    if (csv) {
      const keys = q.normalized ? FUNDING_KEYS : FUNDING_KEYS.slice(0, 2);
      return await sendCsv(res, keys, p.data.map((r) => keys.map((k) => r[k])), p.next_start);
    }
    sendJson(
      res,
      pageJson(
        { symbol: q.symbol, exchange: q.exchange, count: p.count, next_start: p.next_start },
        p.data.map((r) => rowJson(r as unknown as Record<string, string | null>, FUNDING_KEYS)),
      ),
    );
  });

  router.get('/v1/multi-asset', auth, async (req, res) => {
    const csv = wantsCsv(req.query);
    const q = market.multiAssetQuery(principalOf(req), req.query);
    const p = await market.multiAsset(q);
    if (csv) {
      const rows = p.data.map((r) => {
        const bySymbol = new Map(r.values);
        return [r.time, ...q.symbols.map((s) => bySymbol.get(s))];
      });
      return await sendCsv(res, ['time', ...q.symbols], rows, p.next_start);
    }
    sendJson(
      res,
      pageJson(
        { symbols: q.symbols, exchange: q.exchange, timeframe: q.timeframe, field: q.field, count: p.count, next_start: p.next_start },
        p.data.map((r) => `{"time":"${r.time}"${r.values.map(([s, v]) => `,"${s}":"${v}"`).join('')}}`),
      ),
    );
  });

  router.get('/v1/markets', auth, async (req, res) => {
    res.json({ markets: await market.markets(req.query) });
  });

  return router;
}
