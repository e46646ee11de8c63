import { AppError, createRng } from '@rl/service-kit/core';
import { expect } from 'vitest';

/** Elementwise |actual - expected| <= tol (treats -0 and 0 alike; NaN only matches NaN). */
export function expectAllClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-6): void {
  expect(actual.length).toBe(expected.length);
  const bad: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as number;
    const e = expected[i] as number;
    const ok = Number.isNaN(e) ? Number.isNaN(a) : Math.abs(a - e) <= tol;
    if (!ok) bad.push(`[${i}] ${a} vs ${e}`);
  }
  expect(bad).toEqual([]);
}

/** Asserts that `fn` throws an AppError `invalid_params` naming `field`. */
export function expectInvalid(fn: () => unknown, field: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect(caught).toMatchObject({ code: 'invalid_params', details: { field } });
}

/** n uniform doubles in [lo, hi) from a seeded generator. */
export function randomFloats(seed: number, n: number, lo: number, hi: number): Float64Array {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => lo + (hi - lo) * rng.next());
}

/** n 0/1 mask entries, each 1 with probability `pOne`, from a seeded generator. */
export function randomMask(seed: number, n: number, pOne = 0.7): Float64Array {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => (rng.next() < pOne ? 1 : 0));
}

/**
 * Compares an analytic gradient with central finite differences of `loss` at `x` (mutated and
 * restored). Tolerance is absolute plus relative to the larger magnitude.
 */
export function expectGradientMatches(
  loss: (x: Float64Array) => number,
  x: Float64Array,
  analytic: ArrayLike<number>,
  { h = 1e-6, absTol = 1e-6, relTol = 1e-4 } = {},
): void {
  expect(analytic.length).toBe(x.length);
  const bad: string[] = [];
  for (let i = 0; i < x.length; i++) {
    const keep = x[i] as number;
    x[i] = keep + h;
    const up = loss(x);
    x[i] = keep - h;
    const down = loss(x);
    x[i] = keep;
    const numeric = (up - down) / (2 * h);
    const a = analytic[i] as number;
    if (Math.abs(a - numeric) > absTol + relTol * Math.max(Math.abs(a), Math.abs(numeric))) {
      bad.push(`[${i}] analytic ${a} vs numeric ${numeric}`);
    }
  }
  expect(bad).toEqual([]);
}
