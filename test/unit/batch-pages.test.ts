/** How page reads are batched: one fetch per set of shared parameters, each plan its own page back. */
import { pageOf } from '../../src/domain/market';
import { batchPages } from '../../src/services/reads/batch-pages';

type Row = { time: string };
const rows = (n: number, from = 0): Row[] => Array.from({ length: n }, (_, i) => ({ time: `t${from + i}` }));

interface Q {
  market: string;
  window: string | null;
  limit: number;
}

function spec(ids: Record<string, number>, stored: Record<number, Row[]>) {
  const fetches: Array<{ ids: number[]; limit: number }> = [];
  return {
    fetches,
    spec: {
      // An unknown market, or a window that can hold nothing: no rows to read.
      idOf: (q: Q) => (q.window === null ? null : (ids[q.market] ?? null)),
      keyOf: (q: Q) => q.window ?? '',
      limitOf: (q: Q) => q.limit,
      fetch: async (_q: Q, series: number[], limit: number) => {
        fetches.push({ ids: series, limit });
        return new Map(series.map((id) => [id, (stored[id] ?? []).slice(0, limit)]));
      },
      timeOf: (r: Row) => r.time,
    },
  };
}

describe('pageOf', () => {
  const time = (r: Row) => r.time;
  it('when one more row than the limit came back, then the page stops at the limit and nextStart is that row', () => {
    expect(pageOf(rows(4), 3, time)).toEqual({ count: 3, nextStart: 't3', data: rows(3) });
    expect(pageOf(rows(3), 3, time)).toEqual({ count: 3, nextStart: null, data: rows(3) });
    expect(pageOf([], 3, time)).toEqual({ count: 0, nextStart: null, data: [] });
  });
});

describe('batchPages', () => {
  it('when requests share their parameters, then one fetch serves them all, asked for limit + 1 rows, and each gets its page in order', async () => {
    const { fetches, spec: s } = spec({ a: 1, b: 2 }, { 1: rows(5), 2: rows(2, 10) });
    const pages = await batchPages(
      [
        { market: 'a', window: 'w', limit: 3 },
        { market: 'b', window: 'w', limit: 3 },
      ],
      s,
    );
    expect(fetches).toEqual([{ ids: [1, 2], limit: 4 }]);
    expect(pages).toEqual([
      { count: 3, nextStart: 't3', data: rows(3) },
      { count: 2, nextStart: null, data: rows(2, 10) },
    ]);
  });

  it('when parameters differ, then one fetch per set; an unknown market or a window that can hold nothing is an empty page without a fetch', async () => {
    const { fetches, spec: s } = spec({ a: 1 }, { 1: rows(2) });
    const pages = await batchPages(
      [
        { market: 'a', window: 'w1', limit: 5 },
        { market: 'a', window: 'w2', limit: 5 },
        { market: 'nope', window: 'w1', limit: 5 },
        { market: 'a', window: null, limit: 5 },
      ],
      s,
    );
    expect(fetches.map((f) => f.ids)).toEqual([[1], [1]]);
    expect(pages.map((p) => p.count)).toEqual([2, 2, 0, 0]);
  });

  it('when the same market is asked twice with the same parameters, then it is fetched once and each plan gets its own page', async () => {
    const { fetches, spec: s } = spec({ a: 1 }, { 1: rows(3) });
    const pages = await batchPages(
      [
        { market: 'a', window: 'w', limit: 2 },
        { market: 'a', window: 'w', limit: 2 },
      ],
      s,
    );
    expect(fetches).toEqual([{ ids: [1], limit: 3 }]);
    // Cutting one page to its limit leaves the other's rows whole.
    expect(pages).toEqual([
      { count: 2, nextStart: 't2', data: rows(2) },
      { count: 2, nextStart: 't2', data: rows(2) },
    ]);
  });
});
