import { describe, expect, it } from 'vitest';
import { memoizeString } from './memo.ts';

describe('memoizeString', () => {
  it('computes each distinct input once and returns the same values', () => {
    const calls: string[] = [];
    const upper = memoizeString((s: string) => {
      calls.push(s);
      return s.length === 0 ? null : s.toUpperCase();
    });
    expect([upper('a'), upper('b'), upper('a'), upper(''), upper('')]).toEqual(['A', 'B', 'A', null, null]);
    expect(calls).toEqual(['a', 'b', '']);
  });

  it('stays bounded and does not cache very long inputs', () => {
    let n = 0;
    const f = memoizeString((s: string) => ++n + s.length, 2);
    f('a');
    f('b');
    f('c'); // cache full: 'a', the least recently used, is evicted
    f('a'); // recomputed
    expect(n).toBe(4);
    const long = 'x'.repeat(5000);
    f(long);
    f(long);
    expect(n).toBe(6);
  });
});
