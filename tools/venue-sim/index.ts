/**
 * A local stand-in for Hyperliquid (perpetuals, funding), Binance spot and USD-M, and Bybit linear
 * perpetuals, speaking their REST and WebSocket formats on 127.0.0.1, so no test or benchmark
 * touches the internet. Deterministic (same request, same bytes), on a clock the test may share
 * with the service; fault switches fail the ways the venues do:
 *   const sim = await VenueSimulator.start({ now: clock }); // sim.env: the service's variables
 *   sim.failNext('binance', 1, 429, 2); ... await sim.close();
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { binancePerpRest } from './binance-perp-rest';
import { BinanceRest } from './binance-rest';
import { bybitRate, bybitValues } from './bybit-format';
import { BybitRest } from './bybit-rest';
import { BYBIT_ROUTES } from './bybit-routes';
import { bybitTicker, type BybitTicker } from './bybit-ticker';
import { ContextFeed } from './context-feed';
import { modelContext } from './context-model';
import { Faults } from './faults';
import { BYBIT_STREAM_PATH, PREFIX, routeRequest, routeUpgrade, type RouteDeps } from './http-routes';
import { LiveFeed } from './live-feed';
import { SimMarket } from './market';
import type { SimContext } from './rest';
import { SimSockets } from './sockets';
import { coinOf, type SimVenue } from './venues';
import { binanceKline, binanceValues, fundingRateText, usdmRate, hyperliquidContextValues, hyperliquidValues, type SimCandle, type SimContextValues } from './wire-format';
import { WeightWindow } from './weight';
import type { SimEnv, SimOptions, SimRequest } from './options';

export type { SimVenue } from './venues';
export type { SimCandle, SimContextValues } from './wire-format';
export type { BybitTicker } from './bybit-ticker';
export type { SimEnv, SimOptions, SimRequest } from './options';

const DAY = 86_400_000;

export class VenueSimulator {
  /** Environment for the service: each venue's API and WS URL (http:// and ws:// on 127.0.0.1); BYBIT_WS_URL is the stream's full path. */
  readonly env: SimEnv;
  /** Every REST request served: venue, kind ('candleSnapshot'|'fundingHistory'|'klines'|other), status, weight charged, time, and the parsed request (body or query). */
  readonly requests: SimRequest[] = [];
  private readonly pending = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: http.Server,
    private readonly wss: WebSocketServer,
    private readonly ctx: SimContext,
    private readonly feed: LiveFeed,
    private readonly contextFeed: ContextFeed,
    private readonly socketSet: SimSockets,
  ) {
    const { port } = server.address() as AddressInfo;
    const base = `127.0.0.1:${port}`;
    this.env = {
      HYPERLIQUID_API_URL: `http://${base}${PREFIX.hyperliquid}`,
      HYPERLIQUID_WS_URL: `ws://${base}${PREFIX.hyperliquid}/ws`,
      BINANCE_API_URL: `http://${base}${PREFIX.binance}`,
      BINANCE_WS_URL: `ws://${base}${PREFIX.binance}`,
      BINANCE_FUTURES_API_URL: `http://${base}${PREFIX['binance-perp']}`,
      BINANCE_FUTURES_WS_URL: `ws://${base}${PREFIX['binance-perp']}`,
      BYBIT_API_URL: `http://${base}${PREFIX.bybit}`,
      BYBIT_WS_URL: `ws://${base}${PREFIX.bybit}${BYBIT_STREAM_PATH}`,
    };
  }

  static async start(opts: SimOptions = {}): Promise<VenueSimulator> {
    const now = opts.now ?? Date.now;
    const market = new SimMarket({
      instruments: {
        hyperliquid: new Set(opts.hyperliquid ?? ['BTC', 'ETH']),
        binance: new Set(opts.binance ?? ['BTCUSDT', 'ETHUSDT']),
        'binance-perp': new Set(opts.binancePerp ?? ['BTCUSDT', 'ETHUSDT']),
        bybit: new Set(opts.bybit ?? ['BTCUSDT', 'ETHUSDT']),
      },
      listedAt: opts.listedAt ?? now() - 400 * DAY,
      hyperliquidCandleLimit: opts.hyperliquidCandleLimit ?? 5_000,
      now,
    });
    const faults = new Faults();
    const weights = {
      hyperliquid: new WeightWindow(opts.hyperliquidWeightLimit ?? 1_200, now),
      binance: new WeightWindow(opts.binanceWeightLimit ?? 6_000, now),
      'binance-perp': new WeightWindow(opts.binancePerpWeightLimit ?? 2_400, now),
      bybit: new WeightWindow(opts.bybitWeightLimit ?? 6_000, now),
    };
    const ctx: SimContext = { market, faults, weights };
    const feed = new LiveFeed(market, faults, opts.pushIntervalMs ?? 1_000);
    const contexts = new ContextFeed(market, faults, opts.contextIntervalMs ?? 1_000);
    const sockets = new SimSockets(faults);
    const server = http.createServer();
    const wss = new WebSocketServer({ noServer: true, autoPong: false });
    const sim = await new Promise<VenueSimulator>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => resolve(new VenueSimulator(server, wss, ctx, feed, contexts, sockets)));
    });
    const deps: RouteDeps = {
      ctx,
      feed,
      contexts,
      sockets,
      binanceRest: new BinanceRest(ctx),
      binancePerpRest: binancePerpRest(ctx),
      bybitRest: new BybitRest(ctx, BYBIT_ROUTES),
      pingIntervalMs: opts.pingIntervalMs ?? 20_000,
      record: (venue, s) => sim.requests.push({ venue, kind: s.kind, status: s.status, weight: s.weight, at: now(), params: s.params }),
      afterLatency: (venue, send) => sim.afterLatency(venue, send),
    };
    server.on('request', (req, res) => routeRequest(deps, req, res));
    server.on('upgrade', (req, socket, head: Buffer) => routeUpgrade(deps, wss, req, socket, head));
    return sim;
  }

  /** The deterministic candle the venue serves (interval as the venue names it: '1m', Bybit's '1'), as its strings (partial values for the open one); null when not served. */
  candle(venue: SimVenue, instrument: string, interval: string, openMs: number): SimCandle | null {
    const market = this.ctx.market;
    const i = market.interval(venue, interval);
    if (i === undefined || !market.served(venue, instrument, i, openMs)) return null;
    const values = market.values(venue, instrument, i, openMs);
    if (venue === 'bybit') {
      const { turnover: _turnover, ...candle } = bybitValues(coinOf(venue, instrument), values);
      return candle;
    }
    return venue === 'hyperliquid' ? hyperliquidValues(coinOf(venue, instrument), values) : binanceValues(values);
  }

  /** The trade flow the venue sends with a candle (Hyperliquid: trades; Binance: also quote and taker-buy volumes; Bybit: turnover), as its strings. */
  tradeFlow(venue: SimVenue, instrument: string, interval: string, openMs: number): Record<string, string> | null {
    const market = this.ctx.market;
    const i = market.interval(venue, interval);
    if (i === undefined || !market.served(venue, instrument, i, openMs)) return null;
    const values = market.values(venue, instrument, i, openMs);
    if (venue === 'hyperliquid') return { trades: String(values.trades) };
    if (venue === 'bybit') return { turnover: bybitValues(coinOf(venue, instrument), values).turnover };
    const k = binanceKline(market.frame(instrument, i, openMs), values);
    return { quoteVolume: String(k[7]), trades: String(k[8]), takerBuyVolume: String(k[9]), takerBuyQuoteVolume: String(k[10]) };
  }

  /** The funding rate of an hour (Hyperliquid), as the venue's string; null if not (yet) published. */
  fundingRate(coin: string, hourMs: number): string | null {
    const f = this.ctx.market.funding(coin, hourMs);
    return f === null ? null : fundingRateText(f);
  }

  /** The asset context of a coin as Hyperliquid sends it for the moment `atMs` (a push carries its slot's). */
  context(coin: string, atMs: number): SimContextValues {
    return hyperliquidContextValues(coin, modelContext(coin, atMs));
  }

  /**
   * Hyperliquid settles `coin`'s `hourMs` at these times instead of a few ms after the hour:
   * late (`hour + 5457`), long after it (`hour + 1433040`), twice, or never (`[]`), as its
   * recorded history has it (test/fixtures/venues/hyperliquid-funding-recorded.json).
   */
  setFundingSettlements(coin: string, hourMs: number, timesMs: readonly number[]): void {
    this.ctx.market.setSettlements(coin, hourMs, timesMs);
  }

  /** From `fromMs` on, Binance USD-M settles `coin` every `hours` hours (default 8); fundingInfo then lists it. */
  setBinancePerpInterval(coin: string, hours: number, fromMs: number): void {
    this.ctx.market.setPerpInterval('binance-perp', coin, hours, fromMs);
  }

  /** Binance USD-M's settlement of `coin` stamped in the hour `hourMs` (as its fundingRate row sends it), or null. */
  binancePerpFunding(coin: string, hourMs: number): { fundingTime: number; fundingRate: string } | null {
    const f = this.ctx.market.perpFundings('binance-perp', coin, hourMs, hourMs + 3_599_999, 1)[0];
    return f ? { fundingTime: f.time, fundingRate: usdmRate(f.rate) } : null;
  }

  /** From `fromMs` on, Bybit settles `coin` every `hours` hours (default 8); instruments-info's fundingInterval then says hours * 60. */
  setBybitInterval(coin: string, hours: number, fromMs: number): void {
    this.ctx.market.setPerpInterval('bybit', coin, hours, fromMs);
  }

  /** Bybit's settlement of `coin` in the hour `hourMs` (stamped on the hour, as its funding/history row sends it), or null. */
  bybitFunding(coin: string, hourMs: number): { fundingRateTimestamp: number; fundingRate: string } | null {
    const f = this.ctx.market.perpFundings('bybit', coin, hourMs, hourMs + 3_599_999, 1)[0];
    return f ? { fundingRateTimestamp: f.time, fundingRate: bybitRate(f.rate) } : null;
  }

  /** Bybit's ticker of `symbol` at `atMs`, as the tickers stream's snapshot carries it (a push carries its slot's). */
  bybitTicker(symbol: string, atMs: number): BybitTicker {
    return bybitTicker(this.ctx.market, symbol, atMs);
  }

  /** While on, the context pushes stop: Hyperliquid's asset contexts and Bybit's tickers (the candles go on). */
  setContextSilent(silent: boolean): void {
    this.ctx.faults.contextSilent = silent;
  }

  /** Weight charged in the current minute window. */
  weightUsed(venue: SimVenue): number {
    return this.ctx.weights[venue].used();
  }

  /** Open WebSocket connections now, and connections accepted in total. */
  sockets(venue: SimVenue): { open: number; accepted: number } {
    return this.socketSet.counts(venue);
  }

  /** The next n REST requests of a venue answer `status` (429 or 418 with Retry-After: retryAfterSecs, Bybit's 403 IP ban, or 500/502...). */
  failNext(venue: SimVenue, n: number, status: number, retryAfterSecs?: number): void {
    this.ctx.faults.failNext(venue, n, { status, retryAfterSecs });
  }

  /** Add latency to every REST response (ms). */
  setLatency(venue: SimVenue, ms: number): void {
    this.ctx.faults.latencyMs[venue] = ms;
  }

  /** Terminate every open socket of a venue (a drop). */
  dropSockets(venue: SimVenue): void {
    this.socketSet.drop(venue);
  }

  /** While on, the venue's sockets stay open but send nothing at all: no data, no pings, no pongs. */
  setSilent(venue: SimVenue, silent: boolean): void {
    this.ctx.faults.silent[venue] = silent;
  }

  /** The next n candle rows the venue emits (REST rows and WS pushes alike) are malformed, one kind after another. */
  malformNext(venue: SimVenue, n: number): void {
    this.ctx.faults.malform(venue, n);
  }

  /** While on, after each close the venue re-sends the just-closed candle as still open, with other values. */
  setResendUnclosed(on: boolean): void {
    this.ctx.faults.resendUnclosed = on;
  }

  /** The venue has no candles opening in [startMs, endMs) for this instrument (every interval; REST and WS skip them). */
  addGap(venue: SimVenue, instrument: string, startMs: number, endMs: number): void {
    this.ctx.market.addGap(venue, instrument, startMs, endMs);
  }

  /** Funding of hour H becomes visible in fundingHistory only at H + ms (default 0). */
  setFundingDelay(ms: number): void {
    this.ctx.market.fundingDelayMs = ms;
  }

  /** Offset venue timestamps by a few ms (e.g. 3) on candles (REST and WS) to prove alignment. */
  setTimeJitter(ms: number): void {
    this.ctx.market.timeJitterMs = ms;
  }

  async close(): Promise<void> {
    this.feed.close();
    this.contextFeed.close();
    this.pending.forEach(clearTimeout);
    this.pending.clear();
    this.socketSet.dropAll();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private afterLatency(venue: SimVenue, send: () => void): void {
    const ms = this.ctx.faults.latencyMs[venue];
    if (ms <= 0) return send();
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      send();
    }, ms);
    this.pending.add(timer);
  }
}
