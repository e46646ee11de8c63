import { describe, expect, it } from 'vitest';
import { lengthChunks } from './length-chunks.ts';

describe('lengthChunks', () => {
  it('chunks indices longest first, ties in input order, every index once', () => {
    expect(lengthChunks([3, 9, 1, 9, 5], 2)).toEqual([[1, 3], [4, 0], [2]]);
    expect(lengthChunks([], 4)).toEqual([]);
    expect(lengthChunks([1, 2, 3], 8)).toEqual([[2, 1, 0]]);
  });
});
