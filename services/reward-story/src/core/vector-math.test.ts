import { describe, expect, it } from 'vitest';
import { centroid, clamp01, cosine, excessOver, mean, sigmoid } from './vector-math.ts';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('vector math', () => {
  it('cosine is the normalised dot product, 0 for a zero vector', () => {
    expect(cosine(v(1, 0), v(1, 1))).toBeCloseTo(Math.SQRT1_2, 6);
    expect(cosine(v(2, 0), v(-3, 0))).toBe(-1);
    expect(cosine(v(0, 0), v(1, 1))).toBe(0);
    expect(() => cosine(v(1), v(1, 0))).toThrow(RangeError);
  });

  it('excessOver is 0 up to the threshold, then linear up to 1 at similarity 1', () => {
    expect(excessOver(0.5, 0.8)).toBe(0);
    expect(excessOver(0.8, 0.8)).toBe(0);
    expect(excessOver(0.9, 0.8)).toBeCloseTo(0.5, 12);
    expect(excessOver(1, 0.8)).toBe(1);
    expect(excessOver(1, 1)).toBe(1);
    expect(excessOver(0.99, 1)).toBe(0);
  });

  it('centroid, mean, clamp01 and sigmoid', () => {
    expect([...centroid([v(1, 0), v(0, 1)])!]).toEqual([0.5, 0.5]);
    expect(centroid([])).toBeUndefined();
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBeUndefined();
    expect([clamp01(-0.2), clamp01(0.3), clamp01(1.5)]).toEqual([0, 0.3, 1]);
    expect(sigmoid(0)).toBe(0.5);
    expect(sigmoid(1)).toBeCloseTo(0.7310585786, 9);
  });
});
