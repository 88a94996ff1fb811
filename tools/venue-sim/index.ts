/**
 * A local stand-in for Hyperliquid (perpetuals, funding) and Binance spot, speaking their REST and
 * WebSocket formats on 127.0.0.1, so no test or benchmark touches the internet. Deterministic (same
 * request, same bytes), on a clock the test may share with the service; fault switches fail the
 * ways the venues do:
 *   const sim = await VenueSimulator.start({ now: clock }); // sim.env: the service's variables
 *   sim.failNext('binance', 1, 429, 2); ... await sim.close();
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { binancePerpRest } from './binance-perp-rest';
import { BinanceRest } from './binance-rest';
import { ContextFeed } from './context-feed';
import { modelContext } from './context-model';
import { Faults } from './faults';
import { PREFIX, routeRequest, routeUpgrade, type RouteDeps } from './http-routes';
import { LiveFeed } from './live-feed';
import { SimMarket } from './market';
import type { SimContext } from './rest';
import { SimSockets } from './sockets';
import { coinOf, type SimVenue } from './venues';
import { binanceKline, binanceValues, fundingRateText, usdmRate, hyperliquidContextValues, hyperliquidValues, type SimCandle, type SimContextValues } from './wire-format';
import { WeightWindow } from './weight';

export type { SimVenue } from './venues';
export type { SimCandle, SimContextValues } from './wire-format';

export interface SimOptions {
  /** Instruments served: hyperliquid coins (e.g. ['BTC','ETH']) and binance symbols (e.g. ['BTCUSDT','ETHUSDT']). */
  hyperliquid?: string[];
  binance?: string[];
  /** Binance USD-M perpetuals (e.g. ['BTCUSDT','ETHUSDT'], the default). */
  binancePerp?: string[];
  /** The simulator's clock (default Date.now). Tests pass an offset clock shared with the service. */
  now?: () => number;
  /** No candle opens before this (a listing date); default now - 400 days. */
  listedAt?: number;
  /** Hyperliquid's horizon: most recent N candles per interval (default 5000). */
  hyperliquidCandleLimit?: number;
  /** Weight limits per minute (defaults 1200 and 6000); Infinity = no limits (benchmarks). */
  hyperliquidWeightLimit?: number;
  binanceWeightLimit?: number;
  /** Binance USD-M's (default 2400). */
  binancePerpWeightLimit?: number;
  /** How often an open candle is pushed on the sockets (default 1000 ms). */
  pushIntervalMs?: number;
  /** How often Hyperliquid pushes an asset context (default 1000 ms), half an interval off the second. */
  contextIntervalMs?: number;
  /** Binance server ping interval (default 20000). */
  pingIntervalMs?: number;
  port?: number; // 0 = any (default)
}

export type SimEnv = Record<
  'HYPERLIQUID_API_URL' | 'HYPERLIQUID_WS_URL' | 'BINANCE_API_URL' | 'BINANCE_WS_URL' | 'BINANCE_FUTURES_API_URL' | 'BINANCE_FUTURES_WS_URL',
  string
>;

export interface SimRequest {
  venue: SimVenue;
  kind: string;
  status: number;
  weight: number;
  at: number;
  params: Record<string, unknown>;
}

const DAY = 86_400_000;

export class VenueSimulator {
  /** Environment for the service: HYPERLIQUID_API_URL, HYPERLIQUID_WS_URL, BINANCE_API_URL, BINANCE_WS_URL (http:// and ws:// on 127.0.0.1). */
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
    };
  }

  static async start(opts: SimOptions = {}): Promise<VenueSimulator> {
    const now = opts.now ?? Date.now;
    const market = new SimMarket({
      instruments: {
        hyperliquid: new Set(opts.hyperliquid ?? ['BTC', 'ETH']),
        binance: new Set(opts.binance ?? ['BTCUSDT', 'ETHUSDT']),
        'binance-perp': new Set(opts.binancePerp ?? ['BTCUSDT', 'ETHUSDT']),
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
      pingIntervalMs: opts.pingIntervalMs ?? 20_000,
      record: (venue, s) => sim.requests.push({ venue, kind: s.kind, status: s.status, weight: s.weight, at: now(), params: s.params }),
      afterLatency: (venue, send) => sim.afterLatency(venue, send),
    };
    server.on('request', (req, res) => routeRequest(deps, req, res));
    server.on('upgrade', (req, socket, head: Buffer) => routeUpgrade(deps, wss, req, socket, head));
    return sim;
  }

  /** The deterministic candle the venue serves, as its strings (partial values for the open one); null when not served. */
  candle(venue: SimVenue, instrument: string, interval: string, openMs: number): SimCandle | null {
    const market = this.ctx.market;
    const i = market.interval(venue, interval);
    if (i === undefined || !market.served(venue, instrument, i, openMs)) return null;
    const values = market.values(venue, instrument, i, openMs);
    return venue === 'hyperliquid' ? hyperliquidValues(coinOf(venue, instrument), values) : binanceValues(values);
  }

  /** The trade flow the venue sends with a candle (Hyperliquid: trades; Binance: also quote and taker-buy volumes), as its strings. */
  tradeFlow(venue: SimVenue, instrument: string, interval: string, openMs: number): Record<string, string> | null {
    const market = this.ctx.market;
    const i = market.interval(venue, interval);
    if (i === undefined || !market.served(venue, instrument, i, openMs)) return null;
    const values = market.values(venue, instrument, i, openMs);
    if (venue === 'hyperliquid') return { trades: String(values.trades) };
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
    this.ctx.market.setUsdmInterval(coin, hours, fromMs);
  }

  /** Binance USD-M's settlement of `coin` stamped in the hour `hourMs` (as its fundingRate row sends it), or null. */
  binancePerpFunding(coin: string, hourMs: number): { fundingTime: number; fundingRate: string } | null {
    const f = this.ctx.market.usdmFundings(coin, hourMs, hourMs + 3_599_999, 1)[0];
    return f ? { fundingTime: f.time, fundingRate: usdmRate(f.rate) } : null;
  }

  /** While on, Hyperliquid's asset contexts stop (the candles go on). */
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

  /** The next n REST requests of a venue answer `status` (429 or 418 with Retry-After: retryAfterSecs, or 500/502...). */
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
