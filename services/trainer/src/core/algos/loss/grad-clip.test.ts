import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../testing/assertions.ts';
import { clipGradNorm } from './grad-clip.ts';

describe('clipGradNorm (torch clip_grad_norm_ in verl _optimizer_step)', () => {
  it('scales every tensor by max_norm / (norm + 1e-6) when the global norm is too large', () => {
    const a = Float32Array.from([3, 0]);
    const b = Float32Array.from([0, 4]);
    const r = clipGradNorm([a, b], 1.0);
    expect(r.totalNorm).toBe(5);
    expect(r.clipCoef).toBeCloseTo(1 / (5 + 1e-6), 12);
    expect(r.skipStep).toBe(false);
    expectAllClose(a, [0.6, 0], 1e-6);
    expectAllClose(b, [0, 0.8], 1e-6);
  });

  it('leaves small gradients alone (coefficient clamped to 1)', () => {
    const g = Float32Array.from([0.3, 0.4]);
    const r = clipGradNorm([g], 1.0);
    expect(r.totalNorm).toBeCloseTo(0.5, 7);
    expect(r.clipCoef).toBe(1);
    expectAllClose(g, [0.3, 0.4], 1e-7);
  });

  it('supports the max-abs norm', () => {
    const g = Float32Array.from([-2, 1]);
    expect(clipGradNorm([g], 1.0, Infinity).totalNorm).toBe(2);
    expectAllClose(g, [-1, 0.5], 1e-6);
  });

  it.each([NaN, Infinity])('flags a %s norm to skip the step and leaves gradients untouched', (bad) => {
    const g = Float32Array.from([1, bad]);
    const r = clipGradNorm([g, Float32Array.from([2])], 1.0);
    expect(r.skipStep).toBe(true);
    expect(Number.isFinite(r.totalNorm)).toBe(false);
    expect(g[0]).toBe(1);
  });

  it('returns norm 0 for no gradients and rejects a non-positive max norm', () => {
    expect(clipGradNorm([], 1.0)).toEqual({ totalNorm: 0, clipCoef: 1, skipStep: false });
    expectInvalid(() => clipGradNorm([Float32Array.from([1])], 0), 'maxNorm');
  });
});
