/**
 * How every page-per-series read is batched: queries that share their parameters (the
 * `key`) become one repository call over all their series, and each query gets its page
 * back in order. Used by candles, funding and features alike, for one REST request or a
 * DataLoader batch of GraphQL fields.
 */

export interface Page<Row> {
  count: number;
  next_start: string | null;
  data: Row[];
}

/** Cut a fetched list (limit + 1 rows) to a page with next_start. */
export function page<Row extends { time: string }>(rows: Row[], limit: number): Page<Row> {
  if (rows.length > limit) return { count: limit, next_start: rows[limit].time, data: rows.slice(0, limit) };
  return { count: rows.length, next_start: null, data: rows };
}

export interface BatchSpec<Q, Row> {
  /** Series id of the query's market; undefined when the market does not exist. */
  idOf(q: Q): number | undefined;
  /** Parameters shared by a batch; null when the query can have no rows (empty page). */
  keyOf(q: Q): string | null;
  /** Rows per page; the fetch is asked for one more, to find next_start. */
  limitOf(q: Q): number;
  /** Rows per series for the series of one batch (`first` is any query of the batch). */
  fetch(first: Q, ids: number[], limit: number): Promise<Map<number, Row[]>>;
}

export async function batchPages<Q, Row extends { time: string }>(queries: readonly Q[], spec: BatchSpec<Q, Row>): Promise<Array<Page<Row>>> {
  const groups = new Map<string, { first: Q; ids: Set<number> }>();
  for (const q of queries) {
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
  return queries.map((q) => {
    const key = spec.keyOf(q);
    const rows = key === null ? undefined : results.get(`${key}|${spec.idOf(q)}`);
    return page(rows ?? [], spec.limitOf(q));
  });
}
