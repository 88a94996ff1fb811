/** Features over REST: wide rows (time plus one property per requested feature) and the catalogue. */
import { z } from 'zod';
import { FEATURE_CATALOGUE, FEATURE_CATEGORIES } from '../../domain/feature-catalogue';
import type { FeatureRequest, FeatureRow, Page } from '../../domain/market';
import { joinedBytes } from '../../encoding/json-rows';
import type { FeaturePlan, RenderedRow } from '../../services/reads/feature-read.service';
import type { Representation } from '../data-route';
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

/**
 * A row's JSON object as the database renders it into this template (FeaturesRepository.renderedPage):
 * `{"time":"…","rsi_14":"51.234567",...}`, the names the request's, in its order.
 */
export const featureRowTemplate = (q: FeatureRequest): string[] => ['{"time":', ...q.names.map((n) => `,"${n}":`), '}'];

export const featureCsvColumns = (q: FeatureRequest) => ['time', ...q.names];

export const FEATURE_REPRESENTATION: Representation<FeaturePlan, Page<RenderedRow>, FeatureRow> = {
  readJson: (plan) => plan.readRendered(featureRowTemplate(plan.request)),
  json: (q, p) => pageJsonBytes(pageHead(q, p), joinedBytes(p.data.map((r) => r.text))),
  table(q, p: Page<FeatureRow>) {
    const columns = featureCsvColumns(q);
    return { columns, rows: p.data, cells: (r: FeatureRow) => columns.map((c) => r[c]), scaleOf: () => 6, nextStart: p.nextStart };
  },
};

export const CATALOGUE_SCHEMA = z.object({
  features: z.array(z.object({ name: z.string(), description: z.string(), category: z.enum(FEATURE_CATEGORIES) })),
});

/** `{"features":[...]}`, rendered once: the catalogue never changes while running. */
export const CATALOGUE_JSON = JSON.stringify({ features: FEATURE_CATALOGUE });
