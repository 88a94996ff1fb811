/** GET /v1/quality: records keyed by timeframe, the spec's fields in snake_case. */
import { z } from 'zod';
import type { QualityRequest } from '../../domain/market';
import type { QualityRecord } from '../../domain/quality';
import { decimal, restShape, timestamp } from './shape';

type Components = QualityRecord['components'];

const COMPONENTS = restShape<Components>({
  gap_rate_score: { from: 'gapRateScore', schema: z.string() },
  anomaly_score: { from: 'anomalyScore', schema: z.string() },
  consistency_score: { from: 'consistencyScore', schema: z.string() },
  freshness_score: { from: 'freshnessScore', schema: z.string() },
});

export const QUALITY_RECORD = restShape<QualityRecord>({
  dqs: { from: 'dqs', schema: decimal('0.30 gap + 0.25 anomaly + 0.25 consistency + 0.20 freshness') },
  computed_at: { from: 'computedAt', schema: timestamp },
  components: { from: 'components', schema: COMPONENTS.schema, as: (c: Components) => COMPONENTS.render(c) },
});

export const QUALITY_SCHEMA = z.object({ symbol: z.string(), exchange: z.string(), timeframes: z.record(z.string(), QUALITY_RECORD.schema) });

export function qualityBody(q: QualityRequest, records: QualityRecord[]) {
  return {
    exchange: q.exchange,
    symbol: q.symbol,
    timeframes: Object.fromEntries(records.map((r) => [r.timeframe, QUALITY_RECORD.render(r)])),
  };
}
