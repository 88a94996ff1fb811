/**
 * Bybit v5's public market routes for linear perpetuals, with its quirks: lists newest first
 * (klines with the still-open candle, funding, open interest), kline limit 1,000, funding 200
 * and startTime only with endTime, open interest paged back by an opaque cursor over two years,
 * instruments-info listing a dated future and a pre-launch contract beside the perpetuals.
 */
import { bybitFunding, bybitInstrument, bybitKline, bybitOpenInterest, bybitPremiumKline, bybitPriceKline } from './bybit-format';
import { ParamsError, intervalParam, limitParam, linear, servedSymbol, timeParam, type BybitRoutes } from './bybit-rest';
import { bybitRestTicker, bybitTicker } from './bybit-ticker';
import { modelContext, samplesOf, type SampledValue } from './context-model';
import type { Interval } from './intervals';
import { malformKline } from './malform';
import type { SimContext } from './rest';
import { coinOf } from './venues';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const OPEN_INTEREST_HORIZON_MS = 730 * DAY;
const OPEN_INTEREST_STEPS: Record<string, number> = { '5min': 5 * MINUTE, '15min': 15 * MINUTE, '30min': 30 * MINUTE, '1h': HOUR, '4h': 4 * HOUR, '1d': DAY };
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** The dated BTC future a real list carries: delivered the last Friday of the quarter, 08:00 UTC. */
function quarterly(now: number): { symbol: string; delivery: number } {
  const d = new Date(now);
  for (let month = Math.floor(d.getUTCMonth() / 3) * 3 + 2; ; month += 3) {
    const lastDay = new Date(Date.UTC(d.getUTCFullYear(), month + 1, 0, 8));
    const delivery = lastDay.getTime() - ((lastDay.getUTCDay() + 2) % 7) * DAY;
    const at = new Date(delivery);
    const name = `${at.getUTCDate()}${MONTHS[at.getUTCMonth()]}${String(at.getUTCFullYear()).slice(2)}`;
    if (delivery > now) return { symbol: `BTC-${name}`, delivery };
  }
}

/** The served perpetuals, then a dated future and a pre-launch perpetual; paged by a cursor naming a page's first and last symbol. */
function instrumentsInfo(ctx: SimContext, q: URLSearchParams): object {
  const category = linear(q);
  const now = ctx.market.now();
  const listed = ctx.market.listedAt();
  const served = ctx.market.instruments('bybit');
  const future = quarterly(now);
  const entries = [
    ...served.map((symbol) => {
      const coin = coinOf('bybit', symbol);
      const fundingMinutes = ctx.market.perpInterval('bybit', coin, now).hours * 60;
      return bybitInstrument({ symbol, coin, contractType: 'LinearPerpetual', status: 'Trading', launchTime: listed, deliveryTime: 0, fundingMinutes });
    }),
    bybitInstrument({ symbol: future.symbol, coin: 'BTC', contractType: 'LinearFutures', status: 'Trading', launchTime: future.delivery - 90 * DAY, deliveryTime: future.delivery, fundingMinutes: 0 }),
    bybitInstrument({ symbol: 'NEWUSDT', coin: 'NEW', contractType: 'LinearPerpetual', status: 'PreLaunch', launchTime: now + 7 * DAY, deliveryTime: 0, fundingMinutes: 480 }),
  ].filter((e, k, all) => all.findIndex((x) => x.symbol === e.symbol) === k);
  const symbol = q.get('symbol');
  const matching = symbol ? entries.filter((e) => e.symbol === symbol) : entries;
  const limit = limitParam(q, 1_000, 500);
  const cursor = q.get('cursor');
  const after = cursor ? new URLSearchParams(decodeURIComponent(cursor)).get('last') : null;
  const from = after === null ? 0 : matching.findIndex((e) => e.symbol === after) + 1;
  if (from === 0 && after !== null) throw new ParamsError('cursor invalid');
  const list = matching.slice(from, from + limit);
  const more = from + limit < matching.length;
  const nextPageCursor = more ? encodeURIComponent(`first=${list[0].symbol}&last=${list[list.length - 1].symbol}`) : '';
  return { category, list, nextPageCursor };
}

/** The opens a kline query asks for, newest first: the newest `limit` in [start, end] (default: up to now). */
function klineOpens(ctx: SimContext, q: URLSearchParams, symbol: string, interval: Interval): number[] {
  const start = timeParam(q, 'start');
  const end = timeParam(q, 'end');
  const limit = limitParam(q, 1_000, 200);
  return ctx.market.openTimes('bybit', symbol, interval, { from: start ?? 0, to: end ?? ctx.market.now(), limit, newest: true }).reverse();
}

/** Kline-family queries: category defaults to linear there (as documented), but none other is served. */
function klineCategory(q: URLSearchParams): 'linear' {
  if (q.get('category') === null) return 'linear';
  return linear(q);
}

function klines(ctx: SimContext, q: URLSearchParams): object {
  const category = klineCategory(q);
  const symbol = servedSymbol(ctx, q);
  const interval = intervalParam(ctx, q);
  const coin = coinOf('bybit', symbol);
  const list = klineOpens(ctx, q, symbol, interval).map((open) => {
    const row: unknown[] = bybitKline(ctx.market.frame(symbol, interval, open), coin, ctx.market.values('bybit', symbol, interval, open));
    const kind = ctx.faults.takeMalform('bybit');
    if (kind !== null) malformKline(row, kind, true);
    return row;
  });
  return { symbol, category, list };
}

/** Klines of a modelled value (mark, index, premium): sampled within each candle, partial while it is open. */
function sampledKlines(of: SampledValue, row: (coin: string, open: number, samples: readonly number[]) => string[]) {
  return (ctx: SimContext, q: URLSearchParams): object => {
    const category = klineCategory(q);
    const symbol = servedSymbol(ctx, q);
    const interval = intervalParam(ctx, q);
    const coin = coinOf('bybit', symbol);
    const now = ctx.market.now();
    const list = klineOpens(ctx, q, symbol, interval).map((open) => row(coin, open, samplesOf(coin, of, open, interval.add(open, 1), now)));
    return { symbol, category, list };
  };
}

/** Settlements newest first: the newest `limit` up to endTime (or now), from startTime, which needs endTime. */
function fundingHistory(ctx: SimContext, q: URLSearchParams): object {
  const category = linear(q);
  const symbol = servedSymbol(ctx, q);
  const start = timeParam(q, 'startTime');
  const end = timeParam(q, 'endTime');
  if (start !== null && end === null) throw new ParamsError('startTime and endTime must be passed together');
  const limit = limitParam(q, 200, 200);
  const rows = ctx.market.perpFundings('bybit', coinOf('bybit', symbol), start ?? 0, end ?? ctx.market.now(), limit, true);
  return { category, list: rows.map((f) => bybitFunding(symbol, f)) };
}

function tickers(ctx: SimContext, q: URLSearchParams): object {
  const category = linear(q);
  const symbols = q.get('symbol') === null ? ctx.market.instruments('bybit') : [servedSymbol(ctx, q)];
  const now = ctx.market.now();
  return { category, list: symbols.map((s) => bybitRestTicker(bybitTicker(ctx.market, s, now))) };
}

const TIME_SECONDS = /^[0-9]{1,12}$/;

/** The time a cursor continues before (exclusive), as the "lasttime" (seconds) it carries. */
function cursorTime(cursor: string | null): number | null {
  if (cursor === null || cursor === '') return null;
  const seconds = new URLSearchParams(cursor.includes('%') ? decodeURIComponent(cursor) : cursor).get('lasttime');
  if (seconds === null || !TIME_SECONDS.test(seconds)) throw new ParamsError('cursor invalid');
  return Number(seconds) * 1000;
}

/**
 * Open interest newest first: the value at each multiple of the interval (the moment it was
 * taken) in [startTime, endTime] (default up to now), at most two years back and not before the
 * listing; the newest `limit`, then the older ones through the cursor.
 */
function openInterest(ctx: SimContext, q: URLSearchParams): object {
  const category = linear(q);
  const symbol = servedSymbol(ctx, q);
  const step = OPEN_INTEREST_STEPS[q.get('intervalTime') ?? ''];
  if (step === undefined) throw new ParamsError('intervalTime invalid');
  const start = timeParam(q, 'startTime');
  const end = timeParam(q, 'endTime');
  const limit = limitParam(q, 200, 50);
  const before = cursorTime(q.get('cursor'));
  const now = ctx.market.now();
  const oldest = Math.max(start ?? 0, now - OPEN_INTEREST_HORIZON_MS, ctx.market.listedAt());
  const newest = Math.min(end ?? now, now, before === null ? Infinity : before - 1);
  const coin = coinOf('bybit', symbol);
  const list: Array<ReturnType<typeof bybitOpenInterest>> = [];
  for (let t = Math.floor(newest / step) * step; t >= oldest && list.length < limit; t -= step) list.push(bybitOpenInterest(coin, modelContext(coin, t), t));
  const last = list.length === 0 ? undefined : Number(list[list.length - 1].timestamp);
  const more = last !== undefined && last - step >= oldest;
  const nextPageCursor = more ? encodeURIComponent(`lastid=${last / step}&lasttime=${last / 1000}`) : '';
  return { symbol, category, list, nextPageCursor };
}

export const BYBIT_ROUTES: BybitRoutes = {
  '/v5/market/instruments-info': instrumentsInfo,
  '/v5/market/kline': klines,
  '/v5/market/mark-price-kline': sampledKlines('markPrice', bybitPriceKline),
  '/v5/market/index-price-kline': sampledKlines('oraclePrice', bybitPriceKline),
  '/v5/market/premium-index-price-kline': sampledKlines('premium', (_coin, open, samples) => bybitPremiumKline(open, samples)),
  '/v5/market/funding/history': fundingHistory,
  '/v5/market/tickers': tickers,
  '/v5/market/open-interest': openInterest,
  '/v5/market/time': (ctx) => {
    const now = ctx.market.now();
    return { timeSecond: String(Math.floor(now / 1000)), timeNano: `${now}000000` };
  },
};
