import { describe, expect, it } from 'vitest';
import { tokenRecall } from './token-recall.ts';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('tokenRecall', () => {
  it('is 1 when every reference token has a same-direction reply token, whatever the lengths', () => {
    expect(tokenRecall([v(2, 0), v(0, 5)], [v(1, 0), v(0, 1)])).toBeCloseTo(1, 12);
  });

  it('weights each reference token by its state length', () => {
    // Reference: (3, 0) matched exactly, (0, 1) not at all (cos 0): 3 / (3 + 1).
    expect(tokenRecall([v(1, 0)], [v(3, 0), v(0, 1)])).toBeCloseTo(0.75, 12);
  });

  it('matches each reference token to its best reply token', () => {
    const s = Math.SQRT1_2;
    expect(tokenRecall([v(s, s), v(-1, 0)], [v(1, 0)])).toBeCloseTo(s, 6);
  });

  it('ignores zero-length tokens and is 0 when a side has none left', () => {
    expect(tokenRecall([v(0, 0), v(1, 0)], [v(1, 0), v(0, 0)])).toBeCloseTo(1, 12);
    expect(tokenRecall([], [v(1, 0)])).toBe(0);
    expect(tokenRecall([v(1, 0)], [v(0, 0)])).toBe(0);
  });
});
