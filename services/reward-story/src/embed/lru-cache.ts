/**
 * A least-recently-used map bounded by entry count. A `Map` keeps insertion
 * order, so re-inserting on every hit makes its first key the oldest one.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly maxEntries: number;

  /** `maxEntries` 0 disables the cache (every `get` misses, `set` keeps nothing). */
  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 0) {
      throw new RangeError(`maxEntries must be a non-negative integer, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
  }

  /** The cached value, now marked most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores `value`, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    if (this.maxEntries === 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  /** Number of cached entries. */
  get size(): number {
    return this.entries.size;
  }
}
