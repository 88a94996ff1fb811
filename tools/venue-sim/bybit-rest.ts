/**
 * Bybit v5's public REST under {base} (real: https://api.bybit.com), GET /v5/market/... (routes
 * in bybit-routes.ts), every answer the envelope {retCode, retMsg, result, retExtInfo, time}: a
 * bad parameter or unknown symbol is HTTP 200 retCode 10001; past the minute's request limit
 * (one request, one unit) HTTP 200 retCode 10006 with X-Bapi-Limit-* headers. Forced failures as
 * Bybit fails: 403 "access too frequent" (its IP ban), 429 with Retry-After, 5xx. Unknown path: 404.
 */
import type { ForcedFailure } from './faults';
import type { Interval } from './intervals';
import { jsonAnswer, retryAfter, textAnswer, type Answer, type Served, type SimContext } from './rest';

const MARKET = '/v5/market/';
const TIME_PARAM = /^[0-9]{1,20}$/;

/** A request Bybit refuses with retCode 10001; `reason` follows "params error: ". */
export class ParamsError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A route's answer: the envelope's `result`. */
export type BybitRoutes = Record<string, (ctx: SimContext, q: URLSearchParams) => object>;

/** The envelope every answer comes in. */
export const envelope = (ctx: SimContext, retCode: number, retMsg: string, result: object = {}) => ({
  retCode,
  retMsg,
  result,
  retExtInfo: {},
  time: ctx.market.now(),
});

/** `category`, which must be linear: the only one simulated. */
export function linear(q: URLSearchParams): 'linear' {
  const category = q.get('category');
  if (category === null || category === '') throw new ParamsError('category is required');
  if (category !== 'linear') throw new ParamsError('category invalid');
  return category;
}

/** `symbol`, one the venue serves. */
export function servedSymbol(ctx: SimContext, q: URLSearchParams): string {
  const symbol = q.get('symbol');
  if (symbol === null || symbol === '') throw new ParamsError('symbol is required');
  if (!ctx.market.serves('bybit', symbol)) throw new ParamsError('symbol invalid');
  return symbol;
}

/** A time in ms, or null when absent. */
export function timeParam(q: URLSearchParams, name: string): number | null {
  const v = q.get(name);
  if (v === null || v === '') return null;
  if (!TIME_PARAM.test(v)) throw new ParamsError(`${name} invalid`);
  return Number(v);
}

/** `limit` in [1, max], `fallback` when absent. */
export function limitParam(q: URLSearchParams, max: number, fallback: number): number {
  const v = q.get('limit');
  if (v === null || v === '') return fallback;
  const limit = Number(v);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new ParamsError(`limit must be between 1 and ${max}`);
  return limit;
}

/** `interval`, one of Bybit's kline intervals. */
export function intervalParam(ctx: SimContext, q: URLSearchParams): Interval {
  const name = q.get('interval');
  if (name === null || name === '') throw new ParamsError('interval is required');
  const interval = ctx.market.interval('bybit', name);
  if (interval === undefined) throw new ParamsError('invalid interval');
  return interval;
}

export class BybitRest {
  constructor(
    private readonly ctx: SimContext,
    private readonly routes: BybitRoutes,
  ) {}

  serve(method: string, path: string, query: URLSearchParams): Served {
    const params: Record<string, unknown> = Object.fromEntries(query);
    const kind = path.startsWith(MARKET) ? path.slice(MARKET.length) : path;
    const done = (a: Answer, weight = 0): Served => ({ ...a, kind, weight, params });
    const forced = this.ctx.faults.takeFailure('bybit');
    if (forced !== undefined) return done(this.forced(forced));
    const route = this.routes[path];
    if (route === undefined || method !== 'GET') return done(textAnswer(404, ''));
    const weights = this.ctx.weights.bybit;
    if (!weights.fits(1)) return done(this.tooManyVisits());
    weights.charge(1);
    return done(this.answer(route, query), 1);
  }

  private answer(route: BybitRoutes[string], query: URLSearchParams): Answer {
    try {
      return jsonAnswer(200, envelope(this.ctx, 0, 'OK', route(this.ctx, query)));
    } catch (err) {
      if (!(err instanceof ParamsError)) throw err;
      return jsonAnswer(200, envelope(this.ctx, 10001, `params error: ${err.reason}`));
    }
  }

  /** Over the minute's limit: Bybit's 10006, with the limit headers it sends then. */
  private tooManyVisits(): Answer {
    const w = this.ctx.weights.bybit;
    return jsonAnswer(200, envelope(this.ctx, 10006, 'Too many visits!'), {
      'x-bapi-limit-status': '0',
      'x-bapi-limit': String(w.limit),
      'x-bapi-limit-reset-timestamp': String(w.resetAt()),
    });
  }

  private forced(f: ForcedFailure): Answer {
    if (f.status === 403) return textAnswer(403, 'access too frequent', retryAfter(f.retryAfterSecs));
    if (f.status === 429) return jsonAnswer(429, envelope(this.ctx, 10006, 'Too many visits!'), retryAfter(f.retryAfterSecs));
    return jsonAnswer(f.status, envelope(this.ctx, 10016, 'Internal server error.'), retryAfter(f.retryAfterSecs));
  }
}
