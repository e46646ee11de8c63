import { LRUCache } from 'lru-cache';

/** Longest input a memoised normaliser keeps; longer strings rarely repeat and would pin memory. */
const MAX_KEY_CHARS = 1024;

/**
 * Memoises a pure string function with a least-recently-used cache (lru-cache).
 * Ground truths repeat across a batch (GRPO samples n responses per prompt), so
 * their normalised form is computed once per worker instead of once per item.
 * What this adds to lru-cache: long inputs bypass the cache, and results may be
 * null or undefined (lru-cache stores neither, so values are boxed).
 */
export function memoizeString<R>(fn: (s: string) => R, maxEntries = 4096): (s: string) => R {
  const cache = new LRUCache<string, { value: R }>({ max: maxEntries });
  return function memoized(s: string): R {
    if (s.length > MAX_KEY_CHARS) return fn(s);
    const hit = cache.get(s);
    if (hit !== undefined) return hit.value;
    const value = fn(s);
    cache.set(s, { value });
    return value;
  };
}
