import { describe, expect, it } from 'vitest';
import { growingLru } from '../../src/platform/lru.js';

describe('growingLru', () => {
  it('keeps at most max entries, dropping the least recently used', () => {
    const cache = growingLru<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i);
    cache.get('a');
    cache.set('d', 3);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect([...cache.keys()].sort()).toEqual(['k97', 'k98', 'k99']);
  });

  it('forgets an entry once its ttl has passed', () => {
    let now = 10_000;
    const cache = growingLru<string, true>(10, { ttl: 1_000, ttlResolution: 0, perf: { now: () => now } });
    cache.set('seen', true);
    now = 10_999;
    expect(cache.has('seen')).toBe(true);
    now = 11_001;
    expect(cache.has('seen')).toBe(false);
  });

  it('fetches what it is asked for once, through its fetchMethod', async () => {
    let fetched = 0;
    const cache = growingLru<string, string>(2, {
      fetchMethod: async (key) => {
        fetched++;
        return key.toUpperCase();
      },
    });
    expect(await Promise.all([cache.fetch('x'), cache.fetch('x')])).toEqual(['X', 'X']);
    expect(fetched).toBe(1);
  });
});
