/**
 * How the plans of one GraphQL request are read together: plans that share their parameters
 * (the `key`) become one repository call over all their series, and each plan gets its page
 * back in order. Used by candles, derivatives, funding and features alike.
 */
import { emptyPage, pageOf, type Page } from '../../domain/market';

export interface BatchSpec<P, Row> {
  /** Series id of the plan's market; null when it has no rows (an empty page, nothing read). */
  idOf(plan: P): number | null;
  /** Parameters shared by a batch. */
  keyOf(plan: P): string;
  /** Rows per page; the fetch is asked for one more, to find the next start. */
  limitOf(plan: P): number;
  /** Rows per series for the series of one batch (`first` is any plan of the batch). */
  fetch(first: P, ids: number[], limit: number): Promise<Map<number, Row[]>>;
  /** The served time of a row (the next page's start). */
  timeOf(row: Row): string;
}

export async function batchPages<P, Row>(plans: readonly P[], spec: BatchSpec<P, Row>): Promise<Array<Page<Row>>> {
  const groups = new Map<string, { first: P; ids: Set<number> }>();
  for (const plan of plans) {
    const id = spec.idOf(plan);
    if (id === null) continue;
    const key = spec.keyOf(plan);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { first: plan, ids: new Set() }));
    g.ids.add(id);
  }
  const results = new Map<string, Row[]>();
  for (const [key, g] of groups) {
    const rows = await spec.fetch(g.first, [...g.ids], spec.limitOf(g.first) + 1);
    for (const [id, list] of rows) results.set(`${key}|${id}`, list);
  }
  return plans.map((plan) => {
    const id = spec.idOf(plan);
    const rows = id === null ? undefined : results.get(`${spec.keyOf(plan)}|${id}`);
    // Two plans of one batch may share a series' rows: each cuts its own copy.
    return rows === undefined ? emptyPage<Row>() : pageOf(rows.slice(), spec.limitOf(plan), spec.timeOf);
  });
}
