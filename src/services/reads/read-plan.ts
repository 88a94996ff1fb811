/**
 * A data read resolved once (docs/ARCHITECTURE.md, Read path): the validated request, the
 * instant it was resolved at, what its page is read from (the watermark's scope: series,
 * timeframes, the end its rows are cut at) and the read itself. REST sends a plan through one
 * helper (rest/data-route.ts); GraphQL batches the plans of one request through DataLoaders.
 */
import { marketKey, type SeriesRepository } from '../../db/series.repository';
import type { MarkedPage, WatermarkScope } from '../../db/watermarks.repository';
import type { MarketRef, Page } from '../../domain/market';
import { closedEnd, type FeatureTimeframe } from '../../domain/timeframe';

export type { MarkedPage, WatermarkScope };

/** A read's page with the watermark it was read at (null: no scope, or parts read at different epochs). */
export interface Marked<P> {
  page: P;
  mark: string | null;
}

export interface ReadPlan<Q, P = Page<unknown>> {
  readonly request: Q;
  /** When it was resolved: open ends are cut at the last period closed by then. */
  readonly now: number;
  /** The timeframe of its rows (the period the last row covers): how long a client may keep the page. */
  readonly timeframe: FeatureTimeframe;
  /** What its rows depend on; null: no market of the read has rows (its page is empty, nothing is read). */
  readonly scope: WatermarkScope | null;
  /** The page, with the watermark of `scope` read in the same statements (one snapshot each). */
  read(): Promise<Marked<P>>;
}

/** The key of a plan's request in a GraphQL request's DataLoader (equal requests share one read). */
export const planKey = (plan: ReadPlan<unknown, unknown>): string => JSON.stringify(plan.request);

/**
 * Where a read of one series' periods stands: its series (null: the market has no rows), the end
 * its rows are cut at (the last period closed at `now`) and its watermark's scope.
 */
export async function seriesWindow(
  series: SeriesRepository,
  request: MarketRef & { start: number; end: number },
  timeframe: FeatureTimeframe,
  now: number,
): Promise<{ seriesId: number | null; end: number; scope: WatermarkScope | null }> {
  const seriesId = (await series.idsOf([request])).get(marketKey(request)) ?? null;
  const end = closedEnd(request.end, timeframe, now);
  return { seriesId, end, scope: seriesId === null ? null : { seriesIds: [seriesId], timeframes: [timeframe], startMs: request.start, endMs: end } };
}
