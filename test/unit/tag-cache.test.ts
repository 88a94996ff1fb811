/** The memory cache of remembered ETags (src/services/tag-cache.ts): bounded, least recently used out. */
import { MemoryTagCache } from '../../src/services/reads/tag-cache';

describe('MemoryTagCache', () => {
  it('when more tags than its capacity are remembered, then the least recently asked one is forgotten', async () => {
    const cache = new MemoryTagCache(2);
    await cache.set('a', '"A"');
    await cache.set('b', '"B"');
    expect(await cache.get('a')).toBe('"A"'); // a is now the most recent
    await cache.set('c', '"C"');
    expect(await cache.get('b')).toBeNull();
    expect(await cache.get('a')).toBe('"A"');
    expect(await cache.get('c')).toBe('"C"');
  });

  it('when a key is remembered again, then the new tag replaces the old', async () => {
    const cache = new MemoryTagCache(2);
    await cache.set('a', '"A"');
    await cache.set('a', '"A2"');
    expect(await cache.get('a')).toBe('"A2"');
  });
});
