import { describe, expect, it } from 'vitest';
import { lengthChunks, quarterWidth } from './length-chunks.ts';

describe('lengthChunks', () => {
  it('chunks indices longest first, ties in input order, every index once', () => {
    expect(lengthChunks([3, 9, 1, 9, 5], 2)).toEqual([[1, 3], [4, 0], [2]]);
    expect(lengthChunks([], 4)).toEqual([]);
    expect(lengthChunks([1, 2, 3], 8)).toEqual([[2, 1, 0]]);
  });
});

describe('quarterWidth', () => {
  it('pads to the first quarter step of the job-wide width (multiples of 8) that holds the chunk', () => {
    expect([1, 72, 73, 136, 137, 200, 270].map((n) => quarterWidth(n, 270))).toEqual([72, 72, 136, 136, 208, 208, 272]);
    // Four widths at most, whatever the lengths.
    expect(new Set(Array.from({ length: 270 }, (_, n) => quarterWidth(n + 1, 270))).size).toBe(4);
  });

  it('stretches to an item longer than the job-wide width', () => {
    expect(quarterWidth(300, 270)).toBe(304);
  });
});
