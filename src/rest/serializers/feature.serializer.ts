/** Features over REST: wide rows (time plus one property per requested feature) and the catalogue. */
import { z } from 'zod';
import { FEATURE_CATALOGUE, FEATURE_CATEGORIES } from '../../domain/feature-catalogue';
import type { FeatureRequest, FeatureRow, Page } from '../../domain/market';
import { joinedBytes } from '../../encoding/ascii-text';
import { pageJsonBytes, pageSchema, timestamp } from './shape';

/** A wide row: time plus one decimal string (or null) per requested name. */
export const wideRowSchema = (what: string) =>
  z.object({ time: timestamp }).catchall(z.string().nullable()).meta({ description: `time plus one decimal string per ${what}.` });

export const FEATURE_PAGE_SCHEMA = pageSchema(
  { symbol: z.string(), exchange: z.string(), timeframe: z.string(), features: z.array(z.string()) },
  wideRowSchema('requested feature'),
);

const pageHead = (q: FeatureRequest, p: Page<unknown>) => ({
  symbol: q.symbol,
  exchange: q.exchange,
  timeframe: q.timeframe,
  features: q.names,
  count: p.count,
  next_start: p.nextStart,
});

/** A page whose rows PostgreSQL already rendered as JSON objects (FeatureReadService.pageAsJson). */
export function featurePageJson(q: FeatureRequest, p: Page<string>): Buffer {
  return pageJsonBytes(pageHead(q, p), joinedBytes(p.data));
}

export const featureCsvColumns = (q: FeatureRequest) => ['time', ...q.names];
export const featureCsvCells = (q: FeatureRequest) => (r: FeatureRow) => featureCsvColumns(q).map((c) => r[c]);

export const CATALOGUE_SCHEMA = z.object({
  features: z.array(z.object({ name: z.string(), description: z.string(), category: z.enum(FEATURE_CATEGORIES) })),
});

/** `{"features":[...]}`, rendered once: the catalogue never changes while running. */
export const CATALOGUE_JSON = JSON.stringify({ features: FEATURE_CATALOGUE });
