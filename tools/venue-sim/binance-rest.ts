/**
 * Binance spot's public REST under {base}: GET /api/v3/klines (weight 2; `limit` default 500,
 * at most 1,000; rows opening in [startTime, endTime], oldest first from startTime, else the
 * most recent), /api/v3/ping and /api/v3/time (weight 1). Every answer carries
 * X-MBX-USED-WEIGHT-1M. Past 6,000 weight in a minute: 429 with Retry-After (seconds to the
 * next window); a request sent while that Retry-After runs: 418, an IP ban of 2 minutes (the
 * documented minimum) with Retry-After until it ends. Errors are {"code":..,"msg":..}.
 */
import type { Interval } from './intervals';
import type { CandleRange } from './market';
import { malformKline } from './malform';
import { jsonAnswer, retryAfter, textAnswer, type Answer, type Served, type SimContext } from './rest';
import type { ForcedFailure } from './faults';
import { binanceKline } from './wire-format';

const BAN_MS = 120_000;
const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 1_000;
const TIME_PARAM = /^[0-9]{1,20}$/;

const failure = (status: number, code: number, msg: string, headers: Record<string, string> = {}) => jsonAnswer(status, { code, msg }, headers);
const badRequest = (code: number, msg: string) => failure(400, code, msg);
const missing = (name: string) => badRequest(-1102, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);
const illegal = (name: string) => badRequest(-1100, `Illegal characters found in parameter '${name}'; legal range is '${TIME_PARAM.source}'.`);

type BinanceVenue = 'binance' | 'binance-perp';

/** A kline as the venue emits it, broken if the malformed switch says so. */
function klineRow(ctx: SimContext, venue: BinanceVenue, symbol: string, interval: Interval, open: number): unknown[] {
  const row = binanceKline(ctx.market.frame(symbol, interval, open), ctx.market.values(venue, symbol, interval, open));
  const kind = ctx.faults.takeMalform(venue);
  if (kind !== null) malformKline(row, kind);
  return row;
}

/** Which klines a query asks for: from startTime up (bounded by endTime), else the newest up to endTime or now. */
export function rangeOf(start: number | null, end: number | null, limit: number, now: number): CandleRange {
  if (start !== null) return { from: start, to: end ?? now, limit };
  return { from: 0, to: end ?? now, limit, newest: true };
}

/** A query's symbol (served), interval, times and limit (default 500, at most `maxLimit`), or the venue's refusal. */
export function klineQuery(
  ctx: SimContext,
  venue: BinanceVenue,
  q: URLSearchParams,
  maxLimit: number,
  needs: { interval: boolean } = { interval: true },
): { symbol: string; interval: Interval | undefined; startTime: number | null; endTime: number | null; limit: number } | Answer {
  const symbol = q.get('symbol');
  const intervalName = q.get('interval');
  if (!symbol) return missing('symbol');
  if (needs.interval && !intervalName) return missing('interval');
  if (!ctx.market.serves(venue, symbol)) return badRequest(-1121, 'Invalid symbol.');
  const interval = intervalName === null ? undefined : ctx.market.interval(venue, intervalName);
  if (needs.interval && interval === undefined) return badRequest(-1120, 'Invalid interval.');
  const times: Record<'startTime' | 'endTime', number | null> = { startTime: null, endTime: null };
  for (const name of ['startTime', 'endTime'] as const) {
    const v = q.get(name);
    if (v === null) continue;
    if (!TIME_PARAM.test(v)) return illegal(name);
    times[name] = Number(v);
  }
  const limitText = q.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) return badRequest(-1130, "Data sent for parameter 'limit' is not valid.");
  return { symbol, interval, ...times, limit };
}

export const isAnswer = (v: object): v is Answer => 'status' in v && 'body' in v;

/** GET klines of `venue` (the still-open candle included, as the venues send it). */
export function klines(venue: BinanceVenue, maxLimit: number) {
  return (ctx: SimContext, q: URLSearchParams): Answer => {
    const k = klineQuery(ctx, venue, q, maxLimit);
    if (isAnswer(k)) return k;
    const opens = ctx.market.openTimes(venue, k.symbol, k.interval!, rangeOf(k.startTime, k.endTime, k.limit, ctx.market.now()));
    return jsonAnswer(200, opens.map((open) => klineRow(ctx, venue, k.symbol, k.interval!, open)));
  };
}

export type Routes = Record<string, { weight: number; answer: (ctx: SimContext, q: URLSearchParams) => Answer }>;

const ROUTES: Routes = {
  '/api/v3/klines': { weight: 2, answer: klines('binance', MAX_LIMIT) },
  '/api/v3/ping': { weight: 1, answer: () => jsonAnswer(200, {}) },
  '/api/v3/time': { weight: 1, answer: (ctx) => jsonAnswer(200, { serverTime: ctx.market.now() }) },
};

export class BinanceRest {
  /** Until then a request earns a ban (the Retry-After of a 429 is running). */
  private backoffUntil = 0;
  private bannedUntil = 0;

  constructor(
    private readonly ctx: SimContext,
    private readonly venue: BinanceVenue = 'binance',
    private readonly routes: Routes = ROUTES,
  ) {}

  serve(method: string, path: string, query: URLSearchParams): Served {
    const weights = this.ctx.weights[this.venue];
    const params: Record<string, unknown> = Object.fromEntries(query);
    const kind = path.endsWith('/klines') ? 'klines' : path.slice(path.lastIndexOf('/') + 1);
    const done = (a: Answer, weight = 0): Served => ({
      ...a,
      headers: { ...a.headers, 'x-mbx-used-weight-1m': String(weights.used()) },
      kind,
      weight,
      params,
    });
    const now = this.ctx.market.now();
    if (now < this.bannedUntil) return done(this.banned(now));
    const forced = this.ctx.faults.takeFailure(this.venue);
    if (forced !== undefined) return done(this.forced(forced, now));
    if (now < this.backoffUntil) {
      this.bannedUntil = now + BAN_MS;
      return done(this.banned(now));
    }
    const route = this.routes[path];
    if (route === undefined || method !== 'GET') return done(textAnswer(404, ''));
    if (!weights.fits(route.weight)) return done(this.tooMuchWeight(now, weights.secondsToReset()));
    weights.charge(route.weight);
    return done(route.answer(this.ctx, query), route.weight);
  }

  private tooMuchWeight(now: number, secs: number): Answer {
    this.backoffUntil = now + secs * 1000;
    const msg = `Too much request weight used; current limit is ${this.ctx.weights[this.venue].limit} request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.`;
    return failure(429, -1003, msg, retryAfter(secs));
  }

  private banned(now: number): Answer {
    const msg = `Way too much request weight used; IP banned until ${this.bannedUntil}. Please use WebSocket Streams for live updates to avoid bans.`;
    return failure(418, -1003, msg, retryAfter(Math.ceil((this.bannedUntil - now) / 1000)));
  }

  /** A forced failure; a forced 429 or 418 with Retry-After starts the back-off or ban it announces. */
  private forced(f: ForcedFailure, now: number): Answer {
    const until = f.retryAfterSecs === undefined ? 0 : now + f.retryAfterSecs * 1000;
    if (f.status === 429) {
      this.backoffUntil = until;
      return failure(429, -1003, 'Too many requests queued.', retryAfter(f.retryAfterSecs));
    }
    if (f.status === 418 && f.retryAfterSecs !== undefined) {
      this.bannedUntil = until;
      return this.banned(now);
    }
    return failure(f.status, -1000, 'An unknown error occurred while processing the request.', retryAfter(f.retryAfterSecs));
  }
}
