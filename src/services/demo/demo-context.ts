/**
 * The demo's perpetuals as stored (domain/demo-data.ts, DEMO_PERP_MODELS): their context minutes,
 * each from the same day candles the demo's candles come from, so mark and index follow the
 * demo's perpetual and spot closes; and their settlements' intervals. Used by the seed and the
 * demo feed.
 */
import type { SettlementIntervals } from '../../db/funding.repository';
import { DEMO_PERP_MODELS, demoContext, demoPerpOf, demoSettlementHours, demoSpotDay, type DemoCandle, type DemoPerpetual, type DemoSymbol } from '../../domain/demo-data';
import { contextRow, type DerivativesInput } from '../../domain/derivatives';
import type { Exchanges } from '../../domain/exchanges';
import { MINUTE_MS } from '../../domain/time';
import { bucketStart } from '../../domain/timeframe';

export type { DemoPerpetual } from '../../domain/demo-data';
/** Every demo perpetual (catalogue keys), each with its context. */
export const DEMO_PERPETUALS = Object.keys(DEMO_PERP_MODELS) as DemoPerpetual[];

/** Context minutes of `sym` on `venue` opening in [fromMs, toMs]. */
export function demoContextRows(sym: DemoSymbol, venue: DemoPerpetual, fromMs: number, toMs: number): DerivativesInput[] {
  const rows: DerivativesInput[] = [];
  let day = -1;
  let spot: DemoCandle[] = [];
  let perp: DemoCandle[] = [];
  for (let t = fromMs; t <= toMs; t += MINUTE_MS) {
    const d = bucketStart(t, '1d');
    if (d !== day) {
      day = d;
      spot = demoSpotDay(sym, d);
      perp = demoPerpOf(sym, spot, venue);
    }
    const i = (t - d) / MINUTE_MS;
    rows.push(contextRow(t, demoContext(sym, venue, t, perp[i].close, spot[i].close)));
  }
  return rows;
}

/**
 * The intervals the settlements of `sym` on `venue` are stored with: its catalogue entry's
 * longest, and the model's own for a series' first row (as a venue's fundingInterval says it).
 */
export function demoSettlementIntervals(exchanges: Exchanges, venue: DemoPerpetual, sym: DemoSymbol): SettlementIntervals {
  return { maxHours: exchanges.byKey(venue)!.funding!.maxHours, firstHours: demoSettlementHours(sym, venue) };
}
