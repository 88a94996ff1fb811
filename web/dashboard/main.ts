/**
 * /dashboard: the service's own GraphQL client. With the user's key (sessionStorage) it asks
 * for the markets, draws the most recent window of the chosen market and timeframe, pages back
 * through history as the user scrolls left, and follows closed candles, context periods, settled
 * funding and quality changes over graphql-ws. The URL's hash names the view: #perp/BTC-USDT/1h.
 */
import { storedKey, storeKey } from '../shared/api-key';
import { gql, RequestRefused, type ApiError } from '../shared/graphql';
import { MarketChart } from './chart';
import { Live } from './live';
import { BOOT, CANDLE_CLOSED, DERIVATIVES_CLOSED, FUNDING_SETTLED, INGEST, QUALITY_CHANGED, type Boot, type IngestStatus, type MarketInfo, type QualityRecord } from './queries';
import { barOf, featurePoints, fundingPoints, isTimeframe, mergeByTime, openInterestPoints, takerSharePoints, TIMEFRAME_MS, type Candle, type Feature, type FundingRow, type Timeframe } from './series';
import { marketId, onKey, setIngest, setLegend, setLive, setMarkets, setMessage, setTimeframes, showError, showKeyForm } from './view';
import { chartData, contextPaneOf, hasFunding, loadWindow, windowBars, type ContextPane, type WindowData } from './windows';

interface View {
  market: MarketInfo;
  timeframe: Timeframe;
  chart: MarketChart;
  first: number;
  /** Start of the oldest window loaded (ms). */
  oldest: number;
  bars: number;
  records: QualityRecord[];
  /** The pane under the price, once a window showed its data. */
  context: ContextPane | null;
  loadingOlder: boolean;
  /** Stop paging back until then (a refusal named a wait). */
  pausedUntil: number;
  unsubscribe: Array<() => void>;
}

let key: string | null = null;
let boot: Boot | null = null;
let live: Live | null = null;
let view: View | null = null;
/** The subscription fields this server has (older servers lack derivativesClosed). */
let subscriptionFields: string[] = [];
/** Bumped on every change of view: answers for an older view are dropped. */
let generation = 0;
let ingest: { status: IngestStatus | null; at: number } = { status: null, at: 0 };
let ingestTimer: number | undefined;

const historyDays = () => boot?.me.limits.historyDays ?? null;
const chartHost = () => document.getElementById('chart') as HTMLElement;

function refused(e: unknown): ApiError {
  if (e instanceof RequestRefused) return e.error;
  return { message: e instanceof Error ? e.message : String(e) };
}

function writeHash(m: MarketInfo, tf: Timeframe): void {
  history.replaceState(null, '', `#${marketId(m)}/${tf}`);
}

function readHash(): { market?: MarketInfo; timeframe?: Timeframe } {
  const [exchange, symbol, tf] = decodeURIComponent(location.hash.slice(1)).split('/');
  const market = boot?.markets.find((m) => m.exchange === exchange && m.symbol === symbol);
  return { market, timeframe: tf && isTimeframe(tf) ? tf : undefined };
}

function renderPickers(): void {
  if (!boot || !view) return;
  const v = view;
  setMarkets(boot.markets, v.market, (m) => void show(m, v.timeframe));
  setTimeframes(boot.me.limits.timeframes, v.timeframe, v.records, (tf) => void show(v.market, tf));
}

function closeView(): void {
  if (!view) return;
  for (const u of view.unsubscribe) u();
  view.chart.remove();
  view = null;
}

/** Draw a market at a timeframe: its most recent window, then follow it live. */
async function show(m: MarketInfo, tf: Timeframe): Promise<void> {
  const gen = ++generation;
  closeView();
  showError(null);
  setMessage(null);
  writeHash(m, tf);
  const cov = (m.coverage ?? []).find((c) => c.timeframe === tf);
  const chart = new MarketChart(chartHost(), tf, hasFunding(m), (bar) => setLegend(m, tf, bar, chart.lastBar()));
  const now = Date.now();
  const last = cov ? Date.parse(cov.last) : Math.floor(now / TIMEFRAME_MS[tf]) * TIMEFRAME_MS[tf];
  const first = cov ? Date.parse(cov.first) : last;
  const bars = windowBars(tf, historyDays());
  const start = Math.max(first, last - (bars - 1) * TIMEFRAME_MS[tf]);
  const v: View = { market: m, timeframe: tf, chart, first, oldest: start, bars, records: [], context: null, loadingOlder: false, pausedUntil: 0, unsubscribe: [] };
  view = v;
  setLegend(m, tf, undefined, undefined);
  renderPickers();
  if (!cov) setMessage(`No ${tf} candles for ${m.symbol} on ${m.exchange} yet.`);

  let w: WindowData;
  try {
    w = await loadWindow(key!, m, tf, v.bars, start, last, true);
  } catch (e) {
    if (gen === generation) onRefusal(refused(e));
    return;
  }
  if (gen !== generation) return;
  v.records = w.quality ?? [];
  renderPickers();
  if (w.errors.length) showError(w.errors[0]);
  v.context = contextPaneOf(w);
  if (v.context) chart.showContext(v.context);
  chart.render(chartData(w, tf));
  chart.setGaps(v.records.find((r) => r.timeframe === tf)?.missingIntervals ?? []);
  setLegend(m, tf, undefined, chart.lastBar());
  followIngest(m, w.ingest ?? null);
  if (!w.bars.length && !w.errors.length && cov) setMessage(`No ${tf} candles in this window.`);
  if (w.bars.length) {
    chart.onScroll((range) => {
      if (range && range.from < 20) void loadOlder(v, gen);
    });
    subscribe(v, gen);
  }
}

/** The window before the oldest one shown, merged in (the user scrolled back). */
async function loadOlder(v: View, gen: number): Promise<void> {
  if (v.loadingOlder || v.oldest <= v.first || Date.now() < v.pausedUntil) return;
  v.loadingOlder = true;
  const step = TIMEFRAME_MS[v.timeframe];
  const end = v.oldest - step;
  const start = Math.max(v.first, end - (v.bars - 1) * step);
  try {
    const w = await loadWindow(key!, v.market, v.timeframe, v.bars, start, end, false);
    if (gen !== generation) return;
    if (w.errors.length) {
      showError(w.errors[0]);
      v.pausedUntil = Date.now() + (w.errors[0].retryAfterSecs ?? 30) * 1000;
      return;
    }
    const older = chartData(w, v.timeframe);
    const cur = v.chart.current;
    const features = { ...cur.features };
    for (const f of Object.keys(older.features) as Feature[]) features[f] = mergeByTime(older.features[f], cur.features[f] ?? []);
    const funding = cur.funding && { zscore: mergeByTime(older.funding.zscore, cur.funding.zscore), premium: mergeByTime(older.funding.premium, cur.funding.premium) };
    v.chart.render({ bars: mergeByTime(older.bars, cur.bars), features, funding, context: mergeByTime(older.context, cur.context ?? []) });
    v.oldest = start;
  } catch (e) {
    if (gen !== generation) return;
    const err = refused(e);
    showError(err);
    v.pausedUntil = Date.now() + (err.retryAfterSecs ?? 30) * 1000;
  } finally {
    v.loadingOlder = false;
  }
}

/** Features of the newest bars, after a live candle (its features are computed with it). */
let featureTimer: number | undefined;
function refreshFeatures(v: View, gen: number, fromMs: number): void {
  clearTimeout(featureTimer);
  featureTimer = window.setTimeout(async () => {
    try {
      const w = await loadWindow(key!, v.market, v.timeframe, v.bars, fromMs, fromMs + TIMEFRAME_MS[v.timeframe] - 1, false);
      if (gen === generation) v.chart.upsertFeatures(featurePoints(w.features));
    } catch {
      // a refused refresh leaves the indicators one bar behind; the next candle tries again
    }
  }, 250);
}

function subscribe(v: View, gen: number): void {
  if (!live) return;
  const vars = { exchange: v.market.exchange, symbol: v.market.symbol };
  const onError = (e: ApiError) => {
    if (gen === generation) showError(e);
  };
  v.unsubscribe.push(
    live.subscribe<{ candleClosed: Candle }>(
      CANDLE_CLOSED,
      { ...vars, timeframe: v.timeframe },
      ({ candleClosed }) => {
        const bar = barOf(candleClosed);
        v.chart.upsertBar(bar);
        if (v.context === 'taker') v.chart.upsertContext(takerSharePoints([bar]));
        setLegend(v.market, v.timeframe, undefined, v.chart.lastBar());
        refreshFeatures(v, gen, bar.time * 1000);
        if (ingest.status && v.timeframe === '1m') {
          followIngest(v.market, { ...ingest.status, lastClosed: candleClosed.time, lag: (Date.now() - Date.parse(candleClosed.time) - 60_000) / 1000 });
        }
      },
      onError,
    ),
  );
  if (hasFunding(v.market)) {
    v.unsubscribe.push(live.subscribe<{ fundingSettled: FundingRow }>(FUNDING_SETTLED, vars, ({ fundingSettled }) => v.chart.upsertFunding(fundingPoints([fundingSettled], v.timeframe)), onError));
  }
  if (v.context === 'oi' && subscriptionFields.includes('derivativesClosed')) {
    v.unsubscribe.push(
      live.subscribe<{ derivativesClosed: { time: string; openInterest: string | null } }>(
        DERIVATIVES_CLOSED,
        { ...vars, timeframe: v.timeframe },
        ({ derivativesClosed: d }) => v.chart.upsertContext(openInterestPoints({ time: [d.time], openInterest: [d.openInterest] })),
        onError,
      ),
    );
  }
  v.unsubscribe.push(
    live.subscribe<{ qualityChanged: QualityRecord[] }>(
      QUALITY_CHANGED,
      vars,
      ({ qualityChanged }) => {
        v.records = mergeRecords(v.records, qualityChanged);
        renderPickers();
        v.chart.setGaps(v.records.find((r) => r.timeframe === v.timeframe)?.missingIntervals ?? []);
      },
      onError,
    ),
  );
}

const mergeRecords = (old: QualityRecord[], fresh: QualityRecord[]) => [...old.filter((r) => !fresh.some((f) => f.timeframe === r.timeframe)), ...fresh];

/** The ingest line: shown while something ingests the market, polled every 30 s, its lag ticking each second. */
function followIngest(m: MarketInfo, status: IngestStatus | null): void {
  ingest = { status, at: Date.now() };
  setIngest(status, ingest.at);
  clearInterval(ingestTimer);
  if (!status) return;
  let ticks = 0;
  ingestTimer = window.setInterval(async () => {
    setIngest(ingest.status, ingest.at);
    if (++ticks % 30 !== 0 || view?.market !== m) return;
    try {
      const { data } = await gql<{ market: { ingest: IngestStatus | null } | null }>(key!, INGEST, { exchange: m.exchange, symbol: m.symbol });
      if (view?.market === m) followIngest(m, data.market?.ingest ?? null);
    } catch {
      // keep the last status; the next poll tries again
    }
  }, 1000);
}

function onRefusal(e: ApiError): void {
  showError(e);
  if (e.code === 'UNAUTHORIZED') {
    storeKey(null);
    key = null;
    showKeyForm(null);
  }
}

/** With a key: who it is, the markets, whether live updates exist here; then the first view. */
async function start(k: string): Promise<void> {
  key = k;
  storeKey(k);
  showKeyForm(k);
  showError(null);
  live?.close();
  live = null;
  closeView();
  try {
    boot = (await gql<Boot>(k, BOOT)).data;
  } catch (e) {
    onRefusal(refused(e));
    return;
  }
  const fields = boot.__schema.subscriptionType?.fields.map((f) => f.name) ?? [];
  subscriptionFields = fields;
  if (fields.includes('candleClosed')) {
    live = new Live(
      k,
      (s) => setLive(s),
      (e) => onRefusal(e),
    );
  } else setLive('off', 'this server has no GraphQL subscriptions: reload for new data');
  if (!boot.markets.length) {
    setMessage('No markets yet: import data or start ingestion.');
    return;
  }
  const fromHash = readHash();
  const market = fromHash.market ?? boot.markets.find((m) => m.symbol === 'BTC-USDT' && hasFunding(m)) ?? boot.markets[0];
  const allowed = boot.me.limits.timeframes.filter(isTimeframe);
  const timeframe = fromHash.timeframe ?? (allowed.includes('1h') ? '1h' : (allowed[0] ?? '1h'));
  await show(market, timeframe);
}

onKey((k) => void start(k));
const k = storedKey();
if (k) void start(k);
else showKeyForm(null);
