/**
 * Hyperliquid's info endpoint, POST {base}/info with a JSON body: candleSnapshot {req:{coin,
 * interval, startTime, endTime?}} gives the candles opening in [startTime, endTime ?? now],
 * ascending, at most 5,000, only among the most recent N; fundingHistory {coin, startTime,
 * endTime?} the settlements in range, at most 500; metaAndAssetCtxs [meta, contexts] of every
 * coin now. Weight 20 + 1 per 60 candles or 20 rates, 1,200 per minute, then 429. Not JSON:
 * 400; not a known request: 422, both as text (the venue's axum server). An unknown coin gives [].
 */
import { modelContext } from './context-model';
import type { Interval } from './intervals';
import { malformObject } from './malform';
import { retryAfter, textAnswer, jsonAnswer, type Answer, type Served, type SimContext } from './rest';
import { hyperliquidCandle, hyperliquidContext, hyperliquidFunding, szDecimalsOf } from './wire-format';

const MAX_CANDLES = 5_000;
const MAX_FUNDINGS = 500;
const BASE_WEIGHT = 20;
const DESERIALIZE_ERROR = 'Failed to deserialize the JSON body into the target type';

/** An info request's answer: its weight, and the JSON (rendered once the weight is granted) or the text of a 422. */
export type InfoAnswer = { ok: true; weight: number; render: () => unknown } | { ok: false; weight: number; error: string };

type Obj = Record<string, unknown>;

const isObject = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const isTime = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
const isOptionalTime = (x: unknown) => x === undefined || x === null || isTime(x);
const refused = (): InfoAnswer => ({ ok: false, error: DESERIALIZE_ERROR, weight: BASE_WEIGHT });

/** A candle as the venue emits it (REST row or `candle` channel data), broken if the malformed switch says so. */
export function candleRow(ctx: SimContext, coin: string, interval: Interval, open: number, progress?: number): Obj {
  const values = ctx.market.values('hyperliquid', coin, interval, open, progress);
  const row = hyperliquidCandle(ctx.market.frame(coin, interval, open), coin, values);
  const kind = ctx.faults.takeMalform('hyperliquid');
  if (kind !== null) malformObject(row, kind);
  return row;
}

function candleSnapshot(ctx: SimContext, body: Obj): InfoAnswer {
  const req = body.req;
  if (!isObject(req) || typeof req.coin !== 'string' || typeof req.interval !== 'string' || !isTime(req.startTime) || !isOptionalTime(req.endTime)) {
    return refused();
  }
  const interval = ctx.market.interval('hyperliquid', req.interval);
  if (interval === undefined) return refused();
  const coin = req.coin;
  const to = isTime(req.endTime) ? req.endTime : ctx.market.now();
  const opens = ctx.market.openTimes('hyperliquid', coin, interval, { from: req.startTime, to, limit: MAX_CANDLES });
  const render = () => opens.map((open) => candleRow(ctx, coin, interval, open));
  return { ok: true, weight: BASE_WEIGHT + Math.floor(opens.length / 60), render };
}

function fundingHistory(ctx: SimContext, body: Obj): InfoAnswer {
  if (typeof body.coin !== 'string' || !isTime(body.startTime) || !isOptionalTime(body.endTime)) return refused();
  const coin = body.coin;
  const to = isTime(body.endTime) ? body.endTime : ctx.market.now();
  const fundings = ctx.market.fundings(coin, body.startTime, to, MAX_FUNDINGS);
  return { ok: true, weight: BASE_WEIGHT + Math.floor(fundings.length / 20), render: () => fundings.map((f) => hyperliquidFunding(coin, f)) };
}

function metaAndAssetCtxs(ctx: SimContext): InfoAnswer {
  const coins = ctx.market.instruments('hyperliquid');
  const now = ctx.market.now();
  const meta = { universe: coins.map((name) => ({ szDecimals: szDecimalsOf(name), name, maxLeverage: 50 })) };
  return { ok: true, weight: BASE_WEIGHT, render: () => [meta, coins.map((c) => hyperliquidContext(c, modelContext(c, now)))] };
}

/** Answers an info request body (REST and WebSocket post alike). */
export function answerInfo(ctx: SimContext, body: unknown): InfoAnswer {
  if (!isObject(body)) return refused();
  if (body.type === 'candleSnapshot') return candleSnapshot(ctx, body);
  if (body.type === 'fundingHistory') return fundingHistory(ctx, body);
  if (body.type === 'metaAndAssetCtxs') return metaAndAssetCtxs(ctx);
  return refused();
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: `Failed to parse the request body as JSON: ${(err as Error).message}` };
  }
}

/** Serves one HTTP request under the Hyperliquid prefix. */
export function serveHyperliquid(ctx: SimContext, method: string, path: string, contentType: string, text: string): Served {
  const parsed = parseJson(text);
  const params = parsed.ok && isObject(parsed.value) ? parsed.value : {};
  const kind = typeof params.type === 'string' ? params.type : 'invalid';
  const done = (a: Answer, weight = 0): Served => ({ ...a, kind, weight, params });

  if (method !== 'POST' || path !== '/info') return done(textAnswer(404, 'Not Found'));
  const forced = ctx.faults.takeFailure('hyperliquid');
  if (forced !== undefined) return done(textAnswer(forced.status, 'null', retryAfter(forced.retryAfterSecs)));
  if (!contentType.startsWith('application/json')) return done(textAnswer(415, 'Expected request with `Content-Type: application/json`'));
  if (!parsed.ok) return done(textAnswer(400, parsed.error));

  const answer = answerInfo(ctx, parsed.value);
  const weights = ctx.weights.hyperliquid;
  if (!weights.fits(answer.weight)) return done(textAnswer(429, 'null'));
  weights.charge(answer.weight);
  return done(answer.ok ? jsonAnswer(200, answer.render()) : textAnswer(422, answer.error), answer.weight);
}
