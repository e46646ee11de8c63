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
