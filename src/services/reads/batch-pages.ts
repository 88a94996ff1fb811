/**
 * How every page-per-series read is batched: requests that share their parameters (the
 * `key`) become one repository call over all their series, and each request gets its page
 * back in order. Used by candles, funding and features alike, for one REST request or a
 * DataLoader batch of GraphQL fields.
 */
import type { Page } from '../../domain/market';

/** Cut a fetched list (limit + 1 rows) to a page with nextStart. */
export function page<Row extends { time: string }>(rows: Row[], limit: number): Page<Row> {
  if (rows.length > limit) return { count: limit, nextStart: rows[limit].time, data: rows.slice(0, limit) };
  return { count: rows.length, nextStart: null, data: rows };
}

/** The page of one request through a batch reader (what a REST route asks for). */
export async function onePage<Q, Row>(request: Q, pages: (requests: Q[]) => Promise<Array<Page<Row>>>): Promise<{ request: Q; page: Page<Row> }> {
  const [first] = await pages([request]);
  return { request, page: first };
}

export interface BatchSpec<Q, Row> {
  /** Series id of the request's market; undefined when the market does not exist. */
  idOf(q: Q): number | undefined;
  /** Parameters shared by a batch; null when the request can have no rows (empty page). */
  keyOf(q: Q): string | null;
  /** Rows per page; the fetch is asked for one more, to find nextStart. */
  limitOf(q: Q): number;
  /** Rows per series for the series of one batch (`first` is any request of the batch). */
  fetch(first: Q, ids: number[], limit: number): Promise<Map<number, Row[]>>;
}

export async function batchPages<Q, Row extends { time: string }>(requests: readonly Q[], spec: BatchSpec<Q, Row>): Promise<Array<Page<Row>>> {
  const groups = new Map<string, { first: Q; ids: Set<number> }>();
  for (const q of requests) {
    const id = spec.idOf(q);
    const key = spec.keyOf(q);
    if (id === undefined || key === null) continue;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { first: q, ids: new Set() }));
    g.ids.add(id);
  }
  const results = new Map<string, Row[]>();
  for (const [key, g] of groups) {
    const rows = await spec.fetch(g.first, [...g.ids], spec.limitOf(g.first) + 1);
    for (const [id, list] of rows) results.set(`${key}|${id}`, list);
  }
  return requests.map((q) => {
    const key = spec.keyOf(q);
    const rows = key === null ? undefined : results.get(`${key}|${spec.idOf(q)}`);
    return page(rows ?? [], spec.limitOf(q));
  });
}
