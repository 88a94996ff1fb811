/**
 * The demo's perpetual context (domain/demo-data.ts, demoContext) as stored minutes: each minute
 * from the same day candles the demo's candles come from, so mark and index follow the demo's
 * perpetual and spot closes. Used by the seed (seedLater) and the demo feed.
 */
import { demoContext, demoPerpOf, demoSpotDay, type DemoCandle, type DemoSymbol } from '../../domain/demo-data';
import { contextRow, type DerivativesInput } from '../../domain/derivatives';
import { MINUTE_MS } from '../../domain/time';
import { bucketStart } from '../../domain/timeframe';

/** The demo's perpetual exchanges (catalogue keys) and their candle model's salt. */
export type DemoPerpetual = 'perp' | 'binance-perp';
const SALT: Record<DemoPerpetual, 'basis' | 'usdm'> = { perp: 'basis', 'binance-perp': 'usdm' };
/** Every demo perpetual, each with its context. */
export const DEMO_PERPETUALS = Object.keys(SALT) as DemoPerpetual[];

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
      perp = demoPerpOf(sym, spot, SALT[venue]);
    }
    const i = (t - d) / MINUTE_MS;
    rows.push(contextRow(t, demoContext(sym, venue === 'perp' ? 'perp' : 'usdm', t, perp[i].close, spot[i].close)));
  }
  return rows;
}
