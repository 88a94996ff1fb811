/**
 * Windows of one market and timeframe: how many bars one holds on the key's plan, and the
 * loading of one, every page of it, in as few requests as the pages allow; the pane under the
 * price it fills (open interest on a perpetual with recorded context, taker-buy share on spot).
 */
import { gql, type ApiError } from '../shared/graphql';
import { WINDOW, type IngestStatus, type MarketInfo, type QualityRecord, type WindowResult } from './queries';
import {
  barsOf,
  featurePoints,
  fundingPoints,
  hasTakerFlow,
  HOUR,
  isoOf,
  openInterestPoints,
  takerSharePoints,
  TIMEFRAME_MS,
  type Bar,
  type ContextColumns,
  type FeatureRow,
  type FundingRow,
  type Point,
  type Timeframe,
} from './series';

const DAY = 24 * HOUR;
/** Bars per window; funding rows of a window stay under one 10,000-row page. */
const WINDOW_BARS = 500;
const FUNDING_HOURS = 9_600;

/** Bars in one window of `tf` on a plan whose longest window is `historyDays` (null: any). */
export function windowBars(tf: Timeframe, historyDays: number | null): number {
  const ms = TIMEFRAME_MS[tf];
  let n = Math.min(WINDOW_BARS, Math.floor((FUNDING_HOURS * HOUR) / ms));
  if (historyDays) n = Math.min(n, Math.floor((historyDays * DAY) / ms));
  return Math.max(n, 1);
}

export const hasFunding = (m: MarketInfo) => (m.coverage ?? []).some((c) => c.timeframe === 'funding');
/** A perpetual whose context the service records (GET /v1/markets coverage `derivatives`). */
export const hasContext = (m: MarketInfo) => (m.coverage ?? []).some((c) => c.timeframe === 'derivatives');

/** The pane under the price: open interest, the taker-buy share, or none. */
export type ContextPane = 'oi' | 'taker';

export interface WindowData {
  bars: Bar[];
  features: FeatureRow[];
  funding: FundingRow[];
  openInterest: ContextColumns;
  quality?: QualityRecord[] | null;
  ingest?: IngestStatus | null;
  errors: ApiError[];
}

/**
 * [start, end] of one market and timeframe, every page of it: candles, features and funding
 * each follow their own nextStart until the window is complete.
 */
export async function loadWindow(key: string, m: MarketInfo, tf: Timeframe, bars: number, start: number, end: number, first: boolean): Promise<WindowData> {
  const withFunding = hasFunding(m);
  const vars = {
    derivativesFrom: isoOf(start),
    derivatives: hasContext(m),
    // A market without funding is spot: its candles may carry the taker-buy volume.
    flow: !withFunding,
    exchange: m.exchange,
    symbol: m.symbol,
    timeframe: tf,
    end: isoOf(end),
    limit: bars,
    candlesFrom: isoOf(start),
    featuresFrom: isoOf(start),
    fundingFrom: isoOf(start),
    fundingEnd: isoOf(end + Math.max(TIMEFRAME_MS[tf] - HOUR, 0)),
    candles: true,
    features: true,
    funding: withFunding,
    first,
  };
  const out: WindowData = { bars: [], features: [], funding: [], openInterest: { time: [], openInterest: [] }, errors: [] };
  for (let pages = 0; pages < 50 && (vars.candles || vars.features || vars.funding || vars.derivatives); pages++) {
    const { data, errors } = await gql<WindowResult>(key, WINDOW, vars);
    out.errors.push(...errors);
    const mk = data.market;
    if (!mk) {
      if (!errors.length) out.errors.push({ message: `no market ${m.symbol} on ${m.exchange}`, code: 'NOT_FOUND' });
      break;
    }
    if (vars.first) {
      out.quality = mk.quality;
      out.ingest = mk.ingest;
      vars.first = false;
    }
    if (mk.candles) out.bars.push(...barsOf(mk.candles.columns));
    if (mk.features) out.features.push(...mk.features.data);
    if (mk.funding) out.funding.push(...mk.funding.data);
    if (mk.derivatives) {
      out.openInterest.time.push(...mk.derivatives.columns.time);
      out.openInterest.openInterest.push(...mk.derivatives.columns.openInterest);
    }
    // A field refused (null) is not asked again; one with a next page goes on from there.
    vars.candles = !!mk.candles?.nextStart;
    vars.features = !!mk.features?.nextStart;
    vars.funding = !!mk.funding?.nextStart;
    vars.derivatives = !!mk.derivatives?.nextStart;
    if (mk.candles?.nextStart) vars.candlesFrom = mk.candles.nextStart;
    if (mk.features?.nextStart) vars.featuresFrom = mk.features.nextStart;
    if (mk.funding?.nextStart) vars.fundingFrom = mk.funding.nextStart;
    if (mk.derivatives?.nextStart) vars.derivativesFrom = mk.derivatives.nextStart;
  }
  return out;
}

/** The pane a window fills under the price: open interest where recorded, the taker-buy share where the venue sends it. */
export function contextPaneOf(w: WindowData): ContextPane | null {
  if (w.openInterest.time.length) return 'oi';
  return hasTakerFlow(w.bars) ? 'taker' : null;
}

export function chartData(w: WindowData, tf: Timeframe): { bars: Bar[]; features: ReturnType<typeof featurePoints>; funding: ReturnType<typeof fundingPoints>; context: Point[] } {
  const pane = contextPaneOf(w);
  const context = pane === 'oi' ? openInterestPoints(w.openInterest) : pane === 'taker' ? takerSharePoints(w.bars) : [];
  return { bars: w.bars, features: featurePoints(w.features), funding: fundingPoints(w.funding, tf), context };
}
