/** Longest input a memoised normaliser keeps; longer strings rarely repeat and would pin memory. */
const MAX_KEY_CHARS = 1024;

/**
 * Memoises a pure string function with a bounded cache (dropped whole when full).
 * Ground truths repeat across a batch (GRPO samples n responses per prompt), so
 * their normalised form is computed once per worker instead of once per item.
 */
export function memoizeString<R>(fn: (s: string) => R, maxEntries = 4096): (s: string) => R {
  const cache = new Map<string, R>();
  return function memoized(s: string): R {
    if (s.length > MAX_KEY_CHARS) return fn(s);
    const hit = cache.get(s);
    if (hit !== undefined || cache.has(s)) return hit as R;
    const value = fn(s);
    if (cache.size >= maxEntries) cache.clear();
    cache.set(s, value);
    return value;
  };
}
