/** ResponseCache: small pages kept while no watermark of their scope has moved, and only while moves are heard. */
import { MAX_ENTRY_BYTES, ResponseCache } from '../../src/services/reads/response-cache';

const scope = (seriesIds: number[], timeframes = ['1m'] as const) => ({ seriesIds, timeframes: [...timeframes], startMs: 0, endMs: 1 });
const body = (n: number) => ({ body: new Uint8Array(n), tag: `"t${n}"` });

function listening(maxBytes = 1 << 20): ResponseCache {
  const c = new ResponseCache(maxBytes);
  c.listeningChanged(true);
  return c;
}

describe('ResponseCache', () => {
  it('when a page was kept and nothing moved, then it is served again', () => {
    const c = listening();
    c.put('k', scope([1]), c.ticket(), body(10));
    expect(c.get('k')).toEqual(body(10));
  });

  it("when a watermark of the page's scope moves, then it is not served again; a move elsewhere leaves it", () => {
    const c = listening();
    c.put('a', scope([1]), c.ticket(), body(10));
    c.put('b', scope([2, 3]), c.ticket(), body(20));
    c.moved({ timeframe: '1m', seriesIds: [3, 9] });
    c.moved({ timeframe: '1h', seriesIds: [1] });
    expect([c.get('a'), c.get('b')]).toEqual([body(10), null]);
    c.moved('all');
    expect(c.get('a')).toBeNull();
  });

  it('when a move is heard while the page was being read, then the page is not kept (its read may have missed it)', () => {
    const c = listening();
    const ticket = c.ticket();
    c.moved({ timeframe: '1m', seriesIds: [1] });
    c.put('k', scope([1]), ticket, body(10));
    expect(c.get('k')).toBeNull();
    const later = c.ticket();
    c.put('k', scope([1]), later, body(10));
    expect(c.get('k')).toEqual(body(10));
  });

  it('when moves are not heard (before listening, after a lost connection), then nothing is kept or served, and what was kept is gone', () => {
    const c = new ResponseCache(1 << 20);
    expect(c.ticket()).toBeNull();
    c.put('k', scope([1]), { seq: 0, epoch: 0 }, body(10));
    expect(c.get('k')).toBeNull();
    c.listeningChanged(true);
    const ticket = c.ticket();
    c.put('k', scope([1]), ticket, body(10));
    c.listeningChanged(false);
    c.listeningChanged(true);
    expect(c.get('k')).toBeNull();
    // A ticket taken before the connection was lost keeps nothing after it.
    c.put('k', scope([1]), ticket, body(10));
    expect(c.get('k')).toBeNull();
  });

  it('when bodies exceed the memory given, then the least recently used go; a body over MAX_ENTRY_BYTES is never kept; 0 bytes is off', () => {
    const c = listening(MAX_ENTRY_BYTES * 2);
    c.put('a', scope([1]), c.ticket(), body(MAX_ENTRY_BYTES));
    c.put('b', scope([1]), c.ticket(), body(MAX_ENTRY_BYTES));
    expect(c.get('a')).not.toBeNull();
    c.put('c', scope([1]), c.ticket(), body(MAX_ENTRY_BYTES));
    expect([c.get('a') !== null, c.get('b'), c.get('c') !== null]).toEqual([true, null, true]);
    expect(c.size.bytes).toBe(2 * MAX_ENTRY_BYTES);
    c.put('d', scope([1]), c.ticket(), body(MAX_ENTRY_BYTES + 1));
    expect(c.get('d')).toBeNull();
    const off = new ResponseCache(0);
    off.listeningChanged(true);
    expect([off.enabled, off.live, off.ticket()]).toEqual([false, false, null]);
  });
});
