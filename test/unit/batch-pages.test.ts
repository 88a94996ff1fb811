/** How page reads are batched: one fetch per set of shared parameters, each request its own page back. */
import { batchPages, page } from '../../src/services/reads/batch-pages';

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
      idOf: (q: Q) => ids[q.market],
      keyOf: (q: Q) => q.window,
      limitOf: (q: Q) => q.limit,
      fetch: async (_q: Q, series: number[], limit: number) => {
        fetches.push({ ids: series, limit });
        return new Map(series.map((id) => [id, (stored[id] ?? []).slice(0, limit)]));
      },
    },
  };
}

describe('page', () => {
  it('when one more row than the limit came back, then the page stops at the limit and nextStart is that row', () => {
    expect(page(rows(4), 3)).toEqual({ count: 3, nextStart: 't3', data: rows(3) });
    expect(page(rows(3), 3)).toEqual({ count: 3, nextStart: null, data: rows(3) });
    expect(page([], 3)).toEqual({ count: 0, nextStart: null, data: [] });
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

  it('when the same market is asked twice with the same parameters, then it is fetched once', async () => {
    const { fetches, spec: s } = spec({ a: 1 }, { 1: rows(1) });
    await batchPages(
      [
        { market: 'a', window: 'w', limit: 5 },
        { market: 'a', window: 'w', limit: 5 },
      ],
      s,
    );
    expect(fetches).toEqual([{ ids: [1], limit: 6 }]);
  });
});
